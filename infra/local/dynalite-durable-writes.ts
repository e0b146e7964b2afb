// Crash safety of the embedded DynamoDB. dynalite 4.0.0 writes an item's index
// entries and then the item itself, as separate LevelDB writes, and none of them is
// synced: a process killed between two of them left a listing entry whose item does
// not exist (a phantom), and a power loss could lose writes already answered.
// Here every item write is one LevelDB batch (its index entries and the item, all or
// nothing) written with `sync`, so an answered write survives a power loss too.
// Patched, like dynalite-iterators.ts, because dynalite has no hook for it; remove
// when dynalite writes items atomically.
import { fromDynalite, fromLevel } from './dynalite-modules.ts';
import { itemWritten } from './fault-injection.ts';

type Operation = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };
interface LevelDatabase {
  put(key: string, value: unknown, options?: object): Promise<void>;
  del(key: string, options?: object): Promise<void>;
  batch(operations?: Operation[], options?: object): Promise<void>;
}
interface Table {
  TableName: string;
  LocalSecondaryIndexes?: unknown[];
  GlobalSecondaryIndexes?: unknown[];
}
type Item = Record<string, unknown> | null | undefined;
interface IndexActions {
  puts: Array<{ index: string; key: string; item: unknown }>;
  deletes: Array<{ index: string; key: string }>;
}
interface DynaliteDb {
  updateIndexes(
    store: { db: LevelDatabase },
    table: Table,
    existingItem: Item,
    item: Item,
    cb: (error?: Error) => void,
  ): void;
  getIndexActions(indexes: unknown[], existingItem: Item, item: Item, table: Table): IndexActions;
  createKey(item: Record<string, unknown>, table: Table): string;
}

// dynalite's own modules and its two LevelDB classes (on disk, in memory).
const dynaliteDb = fromDynalite('./db') as DynaliteDb;
type LevelClass = { prototype: LevelDatabase };
const { ClassicLevel } = fromLevel('classic-level') as { ClassicLevel: LevelClass };
const { MemoryLevel } = fromDynalite('memory-level') as { MemoryLevel: LevelClass };

/** Index writes computed by updateIndexes, waiting for the item write they belong to. */
const pending = new WeakMap<LevelDatabase, Map<string, Operation[]>>();
const takePending = (db: LevelDatabase, key: string): Operation[] => {
  const operations = pending.get(db)?.get(key) ?? [];
  pending.get(db)?.delete(key);
  return operations;
};

// Key layout of dynalite's db/index.js: `<sub-database>~<key>` in one LevelDB.
const itemKey = (table: Table, key: string) => `item-${table.TableName}~${key}`;
const indexKey = (type: 'Local' | 'Global', table: Table, index: string, key: string) =>
  `index-${type.toLowerCase()}~${table.TableName}~${index}~${key}`;

// dynalite calls updateIndexes, then (under the item's lock) puts or deletes the item.
// The index writes are kept until then and written in the item's batch.
dynaliteDb.updateIndexes = (store, table, existingItem, item, cb) => {
  const operations: Operation[] = [];
  for (const type of ['Local', 'Global'] as const) {
    const { puts, deletes } = dynaliteDb.getIndexActions(
      table[`${type}SecondaryIndexes`] ?? [],
      existingItem,
      item,
      table,
    );
    for (const { index, key } of deletes) operations.push({ type: 'del', key: indexKey(type, table, index, key) });
    for (const { index, key, item: value } of puts)
      operations.push({ type: 'put', key: indexKey(type, table, index, key), value });
  }
  const subject = item ?? existingItem;
  if (operations.length && subject) {
    const forDb = pending.get(store.db) ?? new Map<string, Operation[]>();
    pending.set(store.db, forDb);
    forDb.set(itemKey(table, dynaliteDb.createKey(subject, table)), operations);
  }
  cb();
};

const synced = (options?: object) => ({ ...options, sync: true });
// Before dynalite opens a store: it binds these methods when it does.
for (const { prototype } of [ClassicLevel, MemoryLevel]) {
  const { batch } = prototype;
  prototype.put = async function (this: LevelDatabase, key, value, options) {
    await batch.call(this, [...takePending(this, key), { type: 'put', key, value }], synced(options));
    itemWritten(key);
  };
  prototype.del = function (this: LevelDatabase, key, options) {
    return batch.call(this, [...takePending(this, key), { type: 'del', key }], synced(options));
  };
  prototype.batch = function (this: LevelDatabase, ...args: [Operation[]?, object?]) {
    // Without operations it is the chained form, whose write() dynalite does not use.
    if (args.length === 0) return batch.call(this);
    return batch.call(this, args[0], synced(args[1]));
  };
}
