// Expressions for dynalite's parsers, for test/integration/dynalite-expression-cache.test.ts.
type Data = Record<string, unknown>;

// Every expression the service sends (shared/dynamodb/*), with values of its kinds, then others
// valid and invalid. Each case runs with `values`, then with `again` (same types, other content).
export const S = (s: string) => ({ S: s });
export const N = (n: number) => ({ N: String(n) });
export const expressionCases: { name: string; data: Data; again?: Record<string, unknown> }[] = [
  {
    name: 'createPet',
    data: {
      ConditionExpression:
        'attribute_not_exists(id) OR (#name = :name AND categoryId = :categoryId AND #status = :status)',
      ExpressionAttributeNames: { '#name': 'name', '#status': 'status' },
      ExpressionAttributeValues: { ':name': S('Rex'), ':categoryId': N(1), ':status': S('available') },
    },
    again: { ':name': S('Bench 7'), ':categoryId': N(8), ':status': S('sold') },
  },
  {
    name: 'updatePet',
    data: {
      UpdateExpression: 'SET #f0 = :f0, #f1 = :f1',
      ConditionExpression: 'attribute_exists(id)',
      ExpressionAttributeNames: { '#f0': 'name', '#f1': 'status' },
      ExpressionAttributeValues: { ':f0': S('a'), ':f1': S('sold') },
    },
    again: { ':f0': S('b'), ':f1': S('pending') },
  },
  {
    name: 'status shard query',
    data: {
      KeyConditionExpression: '#shard = :shard',
      ExpressionAttributeNames: { '#shard': 'statusShard' },
      ExpressionAttributeValues: { ':shard': S('sold#0') },
    },
    again: { ':shard': S('available#3') },
  },
  {
    name: 'counter',
    data: {
      UpdateExpression: 'ADD #value :size',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':size': N(1) },
    },
    again: { ':size': N(-1) },
  },
  {
    name: 'shard count',
    data: {
      UpdateExpression: 'SET #value = :shards',
      ConditionExpression: 'attribute_not_exists(#value) OR #value < :shards',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':shards': N(4) },
    },
    again: { ':shards': N(8) },
  },
  { name: 'key put', data: { ConditionExpression: 'attribute_not_exists(keyHash)' } },
  {
    name: 'key lookup',
    data: {
      ProjectionExpression: 'keyId, revokedAt, usageKey, #scope, expiresAt, lastUsedAt',
      ExpressionAttributeNames: { '#scope': 'scope' },
    },
  },
  {
    name: 'key last use',
    data: {
      UpdateExpression: 'SET lastUsedAt = :now',
      ConditionExpression: 'attribute_exists(keyHash) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :stale)',
      ExpressionAttributeValues: { ':now': S('2026-11-29T07:00:00Z'), ':stale': S('2026-11-29T06:00:00Z') },
    },
    again: { ':now': S('2026-11-30T07:00:00Z'), ':stale': S('2026-11-30T06:00:00Z') },
  },
  {
    name: 'key rotation with changes',
    data: {
      UpdateExpression:
        'SET rotatedTo = :to, expiresAt = :expires, changes = list_append(if_not_exists(changes, :noChanges), :changes)',
      ConditionExpression:
        'attribute_exists(keyHash) AND attribute_not_exists(revokedAt) AND attribute_not_exists(rotatedTo)',
      ExpressionAttributeValues: {
        ':to': S('k2'),
        ':expires': S('2026-12-01'),
        ':noChanges': { L: [] },
        ':changes': { L: [{ M: { action: S('rotate') } }] },
      },
    },
    again: {
      ':to': S('k3'),
      ':expires': S('2026-12-02'),
      ':noChanges': { L: [] },
      ':changes': { L: [{ M: { action: S('x') } }, { M: {} }] },
    },
  },
  {
    name: 'key revoke',
    data: {
      UpdateExpression: 'SET revokedAt = :now, changes = list_append(if_not_exists(changes, :noChanges), :changes)',
      ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: { ':now': S('2026-11-29T07:00:00Z'), ':noChanges': { L: [] }, ':changes': { L: [] } },
    },
  },
  {
    name: 'key revoke, no author',
    data: {
      UpdateExpression: 'SET revokedAt = :now',
      ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: { ':now': S('x') },
    },
  },
  {
    name: 'usage key',
    data: {
      UpdateExpression: 'SET usageKey = :usageKey',
      ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(usageKey)',
      ExpressionAttributeValues: { ':usageKey': S('u1') },
    },
  },
  {
    name: 'idempotency claim',
    data: {
      UpdateExpression:
        'SET #status = :inProgress, #expiry = :expiry, #inProgressExpiry = :inProgressExpiry, #validation = :validation, #petId = if_not_exists(#petId, :petId)',
      ConditionExpression:
        'attribute_not_exists(#id) OR (#status = :inProgress AND #inProgressExpiry < :nowMs AND #validation = :validation AND #expiry >= :now)',
      ExpressionAttributeNames: {
        '#id': 'id',
        '#status': 'status',
        '#expiry': 'expiration',
        '#inProgressExpiry': 'in_progress_expiration',
        '#validation': 'validation',
        '#petId': 'petId',
      },
      ExpressionAttributeValues: {
        ':inProgress': S('INPROGRESS'),
        ':expiry': N(1),
        ':inProgressExpiry': N(2),
        ':validation': S('h'),
        ':petId': N(3),
        ':nowMs': N(4),
        ':now': N(5),
      },
    },
  },
  {
    name: 'idempotency release',
    data: {
      UpdateExpression: 'SET #inProgressExpiry = :released',
      ConditionExpression: '#status = :inProgress',
      ExpressionAttributeNames: { '#status': 'status', '#inProgressExpiry': 'x' },
      ExpressionAttributeValues: { ':inProgress': S('INPROGRESS'), ':released': N(0) },
    },
  },
  {
    name: 'idempotency expiry',
    data: {
      ConditionExpression: '#expiry < :now',
      ExpressionAttributeNames: { '#expiry': 'expiration' },
      ExpressionAttributeValues: { ':now': N(1) },
    },
    again: { ':now': N(2) },
  },
  // others, valid
  {
    name: 'between',
    data: {
      KeyConditionExpression: 'id = :id AND #n BETWEEN :lo AND :hi',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':id': N(1), ':lo': N(1), ':hi': N(5) },
    },
    again: { ':id': N(1), ':lo': N(9), ':hi': N(5) },
  },
  {
    name: 'attribute_type',
    data: { FilterExpression: 'attribute_type(a, :t)', ExpressionAttributeValues: { ':t': S('S') } },
    again: { ':t': S('X') },
  },
  {
    name: 'filter and projection',
    data: {
      FilterExpression: 'size(a.b[2]) > :n AND begins_with(c, :p) AND d IN (:x, :y)',
      ProjectionExpression: 'a.b[2], c, #d',
      ExpressionAttributeNames: { '#d': 'd' },
      ExpressionAttributeValues: { ':n': N(1), ':p': S('x'), ':x': S('1'), ':y': S('2') },
    },
  },
  {
    name: 'one value twice',
    data: { ConditionExpression: 'a = :v OR b = :v', ExpressionAttributeValues: { ':v': S('1') } },
    again: { ':v': S('2') },
  },
  {
    name: 'update sections',
    data: {
      UpdateExpression: 'SET a = a + :one, b[0] = :x REMOVE c ADD d :set DELETE e :set',
      ExpressionAttributeValues: { ':one': N(1), ':x': S('x'), ':set': { SS: ['a'] } },
    },
  },
  // invalid
  { name: 'syntax error', data: { ConditionExpression: 'a = = :v', ExpressionAttributeValues: { ':v': S('1') } } },
  { name: 'empty', data: { FilterExpression: '' } },
  { name: 'undefined name', data: { ConditionExpression: '#nope = :v', ExpressionAttributeValues: { ':v': S('1') } } },
  { name: 'undefined value', data: { ConditionExpression: 'a = :nope', ExpressionAttributeNames: { '#a': 'a' } } },
  {
    name: 'unused name',
    data: {
      ConditionExpression: '#a = :v',
      ExpressionAttributeNames: { '#a': 'a', '#b': 'b' },
      ExpressionAttributeValues: { ':v': S('1') },
    },
  },
  {
    name: 'unused value',
    data: {
      ConditionExpression: '#a = :v',
      ExpressionAttributeNames: { '#a': 'a' },
      ExpressionAttributeValues: { ':v': S('1'), ':w': S('2') },
    },
  },
  {
    name: 'name used by the other expression',
    data: {
      UpdateExpression: 'SET #a = :v',
      ConditionExpression: '#b = :w',
      ExpressionAttributeNames: { '#a': 'a', '#b': 'b' },
      ExpressionAttributeValues: { ':v': S('1'), ':w': S('2') },
    },
  },
  { name: 'reserved word', data: { ConditionExpression: 'status = :v', ExpressionAttributeValues: { ':v': S('1') } } },
  {
    name: 'wrong type',
    data: { ConditionExpression: 'begins_with(a, :n)', ExpressionAttributeValues: { ':n': N(1) } },
    again: { ':n': N(2) },
  },
  {
    name: 'type change',
    data: { UpdateExpression: 'SET a = :v + :w', ExpressionAttributeValues: { ':v': N(1), ':w': N(2) } },
    again: { ':v': S('1'), ':w': N(2) },
  },
  {
    name: 'overlapping paths',
    data: { UpdateExpression: 'SET a = :v REMOVE a', ExpressionAttributeValues: { ':v': S('1') } },
  },
  { name: 'unknown function', data: { ConditionExpression: 'nope(a)' } },
  {
    name: 'key condition with OR',
    data: { KeyConditionExpression: 'id = :a OR id = :b', ExpressionAttributeValues: { ':a': N(1), ':b': N(2) } },
  },
  {
    name: 'redundant parentheses',
    data: { ConditionExpression: '((a = :v))', ExpressionAttributeValues: { ':v': S('1') } },
  },
  { name: 'projection with a reserved word', data: { ProjectionExpression: 'name, a' } },
  // one text, two grammars
  { name: 'a projection', data: { ProjectionExpression: 'a' } },
  { name: 'a condition of the same text', data: { FilterExpression: 'a' } },
  {
    name: 'a name, then another',
    data: {
      FilterExpression: '#a = :v',
      ExpressionAttributeNames: { '#a': 'a' },
      ExpressionAttributeValues: { ':v': S('1') },
    },
  },
  {
    name: 'another name',
    data: {
      FilterExpression: '#a = :v',
      ExpressionAttributeNames: { '#a': 'b' },
      ExpressionAttributeValues: { ':v': S('1') },
    },
  },
];
