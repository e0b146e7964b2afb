// getPet's OpenAPI words and examples, and its load (index.ts).
import { PetIdParams } from '../../shared/api/schemas.ts';
import { invalid, rex } from '../openapi-examples.ts';
import { parameters, sunsetDay } from '../openapi-parts.ts';
import type { OperationFacts } from './index.ts';

export const getPet: OperationFacts = {
  openapi: {
    description: `Deprecated: removed on ${sunsetDay}. Use GET /pets with the status filter.`,
    parameters: parameters(PetIdParams.shape, 'path', { petId: 1 }),
    success: { description: 'The animal.', examples: { rex: { summary: 'An animal', value: rex } } },
    badRequest: {
      description: 'petId is not a positive integer of at most 2^53−1.',
      examples: { petId: invalid('petId not a positive integer', PetIdParams, { petId: '0' }, 'path') },
    },
  },
  // GetItem, eventually consistent.
  load: { serviceMs: 4.7, dynamodbRequests: 1, readItems: 1, writeUnits: 0, indexWrites: 0 },
};
