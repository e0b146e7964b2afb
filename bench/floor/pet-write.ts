// The create's write as the floor and the bare server make it: a put with the same condition the
// service's (shared/dynamodb/pets-repository.ts) carries, so that DynamoDB does the same work for
// both sides; a plain put would be a cheaper write than the service's, and flatter its ratio.
// test/integration/floor-write.test.ts holds the two to the same request.
import { PutCommand } from '@aws-sdk/lib-dynamodb';

interface NewItem {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

export const putNewPet = (tableName: string, pet: NewItem): PutCommand =>
  new PutCommand({
    TableName: tableName,
    Item: pet,
    ConditionExpression:
      'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
    ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
    ExpressionAttributeValues: { ':name': pet.name, ':categoryId': pet.categoryId, ':status': pet.status },
  });
