// Each operation's words and figures that the tools need beyond its route entry
// (shared/api/routes.ts): its OpenAPI description and examples (tools/openapi.ts) and its load
// for the capacity plan (tools/capacity.ts). One module an operation; a new operation without one
// is a type error here (`Record<OperationId, …>`).
import type { OperationId } from '../../shared/api/routes.ts';
import type { OperationDoc } from '../openapi-parts.ts';
import { createPet } from './create-pet.ts';
import { getPet } from './get-pet.ts';
import { listPets } from './list-pets.ts';

/** What one request of an operation asks of DynamoDB and Lambda, deployed (docs/capacity.md). */
export interface OperationLoadFacts {
  /**
   * Mean time (ms) the function spends beside its DynamoDB calls, measured locally (docs/performance.md,
   * Inputs to the capacity plan); the capacity plan adds an in-region round trip.
   */
  readonly serviceMs: number;
  readonly dynamodbRequests: number;
  /** Items read per request, eventually consistent; `page`: one page of the listing and the one past it. */
  readonly readItems: number | 'page';
  readonly writeUnits: number;
  /** Writes per request landing on one status's byStatus index key. */
  readonly indexWrites: number;
}

export interface OperationFacts {
  readonly openapi: OperationDoc;
  readonly load: OperationLoadFacts;
}

/** In the capacity tables' order. */
export const operationFacts: Readonly<Record<OperationId, OperationFacts>> = { getPet, listPets, createPet };
