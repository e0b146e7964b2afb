// createPet's OpenAPI words and examples, and its load (index.ts).

import { HttpError } from '../../shared/api/errors.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_WINDOW_SECONDS,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
} from '../../shared/api/idempotency.ts';
import { API_VERSION_PATH } from '../../shared/api/routes.ts';
import { NewPet } from '../../shared/api/schemas.ts';
import { contractError } from '../../shared/lambda/idempotent-create.ts';
import { fromError, invalid, rex } from '../openapi-examples.ts';
import { header, keyedError, parameterSchema, retryAfter } from '../openapi-parts.ts';
import type { OperationFacts } from './index.ts';

/** The contract's error for a refusal of Powertools' idempotency utility (its error's name). */
const idempotencyRefusal = (name: string): HttpError => {
  const refusal = contractError(Object.assign(new Error(name), { name }));
  if (!(refusal instanceof HttpError)) throw new Error(`${name} is not turned into a contract error`);
  return refusal;
};

/** As sent: the key, or the key in double quotes (the draft's form). */
const keyPattern = IDEMPOTENCY_KEY_PATTERN.source.slice(1, -1);
const { description: keyDescription, ...keySchema } = parameterSchema(IdempotencyKey);

export const createPet: OperationFacts = {
  openapi: {
    description:
      'The service assigns the id. `status` defaults to `available`. With an `Idempotency-Key`, a retry is safe: ' +
      `for ${IDEMPOTENCY_WINDOW_SECONDS / 3600} hours after a create succeeded, the same key with the same body ` +
      '(as parsed JSON) creates nothing and gets the first 201 again, marked `Idempotent-Replayed: true`. ' +
      'Keys are per API key; only a 201 is remembered.',
    parameters: [
      {
        name: IDEMPOTENCY_KEY_HEADER,
        in: 'header',
        required: false,
        description: keyDescription,
        schema: { ...keySchema, minLength: 1, maxLength: 257, pattern: `^(?:${keyPattern}|"${keyPattern}")$` },
        example: '5f0c6a2e-8d41-4b7a-9e3f-2c1d0b9a8e77',
      },
    ],
    bodyExamples: {
      minimal: { summary: 'Without a status (then available)', value: { name: 'Rex', categoryId: 3 } },
      withStatus: { summary: 'With a status', value: { name: 'Mia', categoryId: 7, status: 'pending' } },
    },
    success: {
      description: 'The created animal.',
      headers: {
        Location: header('Path of the new animal.', `${API_VERSION_PATH}/pets/1`, {
          type: 'string',
          format: 'uri-reference',
          maxLength: 100,
        }),
        [IDEMPOTENT_REPLAYED_HEADER]: header(
          '`true` when this repeats the response to an earlier request with the same Idempotency-Key.',
          'true',
          { type: 'string', enum: ['true'] },
        ),
      },
      examples: { rex: { summary: 'The created animal, with its id', value: rex } },
    },
    badRequest: {
      description: 'The body is not a JSON object, misses required fields, has unknown fields or invalid values.',
      examples: {
        missing: invalid('categoryId missing', NewPet, { name: 'Rex' }, 'body'),
        unknownField: invalid('a field that is not allowed', NewPet, { id: 7, name: 'Rex', categoryId: 3 }, 'body'),
      },
    },
    refusals: {
      409: keyedError(
        'CONFLICT',
        'A request with the same Idempotency-Key is still being processed.',
        {
          inFlight: fromError(
            'The first request with this key has not answered yet',
            idempotencyRefusal('IdempotencyAlreadyInProgressError'),
          ),
        },
        retryAfter,
      ),
      422: keyedError('UNPROCESSABLE_ENTITY', 'The Idempotency-Key was already used with a different body.', {
        otherBody: fromError('The key was used with another body', idempotencyRefusal('IdempotencyValidationError')),
      }),
    },
  },
  // PutItem (1 WCU) + its byStatus index entry (1 WCU) + the counter's UpdateItem once per 100 ids.
  load: { serviceMs: 6.9, dynamodbRequests: 1.01, readItems: 0, writeUnits: 2.01, indexWrites: 1 },
};
