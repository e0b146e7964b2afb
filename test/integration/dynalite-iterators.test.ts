// The local stage's DynamoDB (dynalite 4.0.0) ends each Query and Scan by calling
// `return()` on a LevelDB iterator; infra/local/dynalite-iterators.ts supplies it,
// else every listing leaves an iterator open for the life of the server.
import { expect, it } from 'vitest';
import '../../infra/local/embedded-dynamodb.ts';
import { fromDynalite } from '../../infra/local/dynalite-modules.ts';

// The LevelDB packages exactly as dynalite resolves them.
const { MemoryLevel } = fromDynalite('memory-level');

it('return() closes a LevelDB iterator, as dynalite expects', async () => {
  const db = new MemoryLevel({ valueEncoding: 'json' });
  await db.batch([1, 2, 3].map((n) => ({ type: 'put', key: `k${n}`, value: { n } })));
  for (const iterator of [db.values({ limit: 2 }), db.keys(), db.iterator()]) {
    expect(await iterator.next()).toBeDefined();
    await iterator.return();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' });
  }
  await db.close();
});
