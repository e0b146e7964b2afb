// What the embedded DynamoDB cannot show: deployed, a taken record comes back with the refused
// write (ReturnValuesOnConditionCheckFailure: ALL_OLD), so a replay, 409 or 422 costs one
// request. The SDK is stubbed only to answer as DynamoDB does; dynalite ignores ALL_OLD (the
// fallback read is held by test/e2e/idempotency-clock.test.ts).
import { IdempotencyConfig, IdempotencyItemAlreadyExistsError } from '@aws-lambda-powertools/idempotency';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { expect, test } from 'vitest';
import { ReservingPersistenceLayer } from '../../shared/dynamodb/idempotency-records.ts';

test('a record that stands in the way is read from the refusal: one request, no read after it', async () => {
  const sent: string[] = [];
  const stored = { id: 'k', status: 'COMPLETED', expiration: Date.now() / 1000 + 3600, data: '{"statusCode":201}' };
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push(command.constructor.name);
      expect(command.input.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
      throw new ConditionalCheckFailedException({ message: 'taken', $metadata: {}, Item: marshall(stored) });
    },
  } as unknown as DynamoDBDocumentClient;
  const layer = new ReservingPersistenceLayer('idempotency', client);
  layer.configure({ config: new IdempotencyConfig({}) });
  const refused = await layer
    .saveInProgress({ body: 'x', reservation: { newId: async () => 7 } } as never)
    .catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(IdempotencyItemAlreadyExistsError);
  const existing = (refused as IdempotencyItemAlreadyExistsError).existingRecord!;
  expect(existing.getStatus()).toBe('COMPLETED');
  expect(existing.responseData).toBe('{"statusCode":201}');
  expect(sent).toEqual(['UpdateCommand']);
});
