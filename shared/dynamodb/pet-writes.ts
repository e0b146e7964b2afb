// The create's one write, on its own: the benchmarks' floor and bare server make the very
// same write without loading the service (this file imports nothing of zod or the domain).
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Pet } from '../api/schemas.ts';

/**
 * The create's one write. It never overwrites another animal; the second clause is for the
 * SDK's retry of a put whose answer timed out after it landed: that retry finds this very
 * item and must succeed, rather than make the caller create a duplicate under a new id.
 */
export const putNewPet = (tableName: string, pet: Pet): PutCommand =>
  new PutCommand({
    TableName: tableName,
    Item: pet,
    ConditionExpression:
      'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
    ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
    ExpressionAttributeValues: { ':name': pet.name, ':categoryId': pet.categoryId, ':status': pet.status },
  });
