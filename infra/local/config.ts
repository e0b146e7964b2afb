// The local server's configuration: every knob is an environment variable, listed in
// README (Configuration). Parsed once at start; a bad value stops the server with its name.
import * as z from 'zod';
import { KEY_PATTERN } from '../../shared/domain/api-keys.ts';
import type { KeyLimits } from '../stages.ts';
import { DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS } from '../stages.ts';

/**
 * Per attempt; with the deployed attempts and back-off, a call still ends inside the
 * functions' timeout (test/unit/dynamodb-budget.test.ts).
 */
export const LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS = 2500;

/** Where `npm start` listens unless PORT and HOST say otherwise (the OpenAPI document names it too). */
export const LOCAL_DEFAULTS = { port: 3000, host: '127.0.0.1' } as const;

/**
 * Each function's concurrency: what the embedded DynamoDB, sharing the process's CPU,
 * keeps up with on two cores (docs/performance.md). Beyond the queue, 429.
 */
export const LOCAL_FUNCTION_CONCURRENCY = { limit: 8, queue: 1000 } as const;
/** Pipelined requests one connection may have waiting before the server stops reading it. */
export const LOCAL_PIPELINE_DEPTH = 16;
/** Idle this long after its memory grew, the server gives it back (idle-memory.ts says why not sooner). */
export const LOCAL_IDLE_MEMORY_SECONDS = 30;

export const Config = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(LOCAL_DEFAULTS.port),
  HOST: z.string().min(1).default(LOCAL_DEFAULTS.host),
  PETSTORE_DATA_DIR: z.string().min(1).default('.data'),
  PETSTORE_API_KEY: z.string().regex(KEY_PATTERN, 'must be pet_ followed by at least 32 base62 characters').optional(),
  // As deployed: a revoke flushes the cache (tools/keys/local-stage.ts), so a revoked key is still refused at once.
  PETSTORE_AUTHORIZER_CACHE_TTL: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS),
  // API Gateway's account-level defaults: the local stage throttles like a deployed one.
  PETSTORE_THROTTLE_RATE: z.coerce.number().positive().default(10_000),
  PETSTORE_THROTTLE_BURST: z.coerce.number().int().min(1).default(5_000),
  PETSTORE_FUNCTION_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(LOCAL_FUNCTION_CONCURRENCY.limit),
  PETSTORE_FUNCTION_QUEUE: z.coerce.number().int().min(0).default(LOCAL_FUNCTION_CONCURRENCY.queue),
  PETSTORE_PIPELINE_DEPTH: z.coerce.number().int().min(1).default(LOCAL_PIPELINE_DEPTH),
  // Each key's own limits, API Gateway's usage plan: generous by default, so that benchmarks
  // measure the server; a deployed stage's are in infra/stages.ts (keyLimits). Quota 0: none.
  PETSTORE_KEY_RATE: z.coerce.number().positive().default(1_000),
  PETSTORE_KEY_BURST: z.coerce.number().int().min(1).default(2_000),
  PETSTORE_KEY_QUOTA: z.coerce.number().int().min(0).default(0),
  PETSTORE_DYNAMODB_TIMEOUT_MS: z.coerce.number().int().min(100).max(3000).default(LOCAL_DYNAMODB_REQUEST_TIMEOUT_MS),
  // N of the status index (shared/dynamodb/status-shards.ts), as statusIndexShards deployed; a data directory's N may only grow.
  PETSTORE_INDEX_SHARDS: z.coerce.number().int().min(1).max(100).default(1),
  // Seconds the stage cache keeps a GET /v1/pets page, as listingCacheTtlSeconds deployed (listing-cache.ts); 0: none.
  PETSTORE_LISTING_CACHE_TTL: z.coerce.number().int().min(0).max(3600).default(0),
  // Seconds without a request after which the server gives back the memory load grew (idle-memory.ts); 0: never.
  PETSTORE_IDLE_MEMORY_SECONDS: z.coerce.number().int().min(0).max(86_400).default(LOCAL_IDLE_MEMORY_SECONDS),
  // Client connections open at once; past it the one idle the longest is closed (connection-limit.ts). Unset: from the open-files limit.
  PETSTORE_MAX_CONNECTIONS: z.coerce.number().int().min(1).optional(),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
});

export type Config = z.infer<typeof Config>;

/** The local stage's limits per key, from its configuration. */
export const keyLimitsOf = (config: Config): KeyLimits => ({
  rateLimit: config.PETSTORE_KEY_RATE,
  burstLimit: config.PETSTORE_KEY_BURST,
  quotaPerDay: config.PETSTORE_KEY_QUOTA || undefined,
});
