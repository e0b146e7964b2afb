// What the embedded DynamoDB cannot show: deployed, a taken record comes back with the refused
// write (ReturnValuesOnConditionCheckFailure: ALL_OLD), so a replay, 409 or 422 costs one
// request. The SDK is stubbed only to answer as DynamoDB does; dynalite ignores ALL_OLD (the
// fallback read is held by test/e2e/idempotency-clock.test.ts).
import { IdempotencyConfig, IdempotencyItemAlreadyExistsError } from '@aws-lambda-powertools/idempotency';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { expect, test } from 'vitest';
import { ReservingPersistenceLayer } from '../../shared/dynamodb/idempotency-records.ts';

test('a record that stands in the way is read from the refusal: one request, no read after it', async () => {
  const sent: string[] = [];
  const stored = { id: 'k', status: 'COMPLETED', expiration: Date.now() / 1000 + 3600, data: '{"statusCode":201}' };
  // A real client (Powertools checks that it is one), answered by a middleware as DynamoDB answers.
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
  );
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      sent.push(context.commandName ?? '?');
      expect((args.input as Record<string, unknown>).ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
      throw new ConditionalCheckFailedException({ message: 'taken', $metadata: {}, Item: marshall(stored) });
    },
    { step: 'initialize' },
  );
  const layer = new ReservingPersistenceLayer('idempotency', client);
  layer.configure({ config: new IdempotencyConfig({}) });
  const refused = await layer
    // The invocation's remaining time, as Powertools' handler passes it (the in-progress record's expiry).
    .saveInProgress({ body: 'x', reservation: { newId: async () => 7 } } as never, 10_000)
    .catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(IdempotencyItemAlreadyExistsError);
  const existing = (refused as IdempotencyItemAlreadyExistsError).existingRecord!;
  expect(existing.getStatus()).toBe('COMPLETED');
  expect(existing.responseData).toBe('{"statusCode":201}');
  expect(sent).toEqual(['UpdateItemCommand']);
});
