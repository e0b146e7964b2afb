// Loaded with `--import` into a server under test: every LevelDB write of the keys table
// waits PETSTORE_TEST_KEY_WRITE_DELAY_MS first, which widens the moment between the
// server taking connections and its PETSTORE_API_KEY being registered. Installed before
// dynalite-durable-writes.ts wraps the same method, so it delays what that one writes.
import { setTimeout as sleep } from 'node:timers/promises';
import { fromLevel } from '../../infra/local/dynalite-modules.ts';

type Batch = (this: unknown, operations?: Array<{ key: string }>, options?: object) => Promise<void>;
const { ClassicLevel } = fromLevel('classic-level') as {
  ClassicLevel: { prototype: { batch: Batch } };
};
const delayMs = Number(process.env.PETSTORE_TEST_KEY_WRITE_DELAY_MS ?? 0);
const { batch } = ClassicLevel.prototype;
ClassicLevel.prototype.batch = async function (this: unknown, ...args: Parameters<Batch>) {
  if (args[0]?.some((operation) => operation.key.startsWith('item-keys~'))) await sleep(delayMs);
  return batch.apply(this, args);
};
