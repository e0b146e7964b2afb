// A Query's or Scan's page read in a few native reads rather than through dynalite's streams.
// dynalite 4.0.0 (db/index.js `queryTable`) wraps the LevelDB iterator in a Readable and three
// `lazy` emitters (the stream, `takeWhile`, `join`) and pulls it one entry at a time, each entry a
// promise, a stream event and a chain of closures that live across several turns of the event
// loop. On a busy server those objects outlive a scavenge: ~28 KB promoted a listing, the reason
// the listings run 3–5 times the mark-compacts of a getPet (docs/performance.md, The young
// generation). Here the page is read with the iterator's `nextv` (up to MAX_ENTRIES_PER_READ
// entries a read, a page of 20 in one) and taken in one loop, with dynalite's own stopping rule,
// filters, projections, capacity and LastEvaluatedKey, copied from its `queryTable`. A Query of a
// local index that fetches the items (Select ALL_ATTRIBUTES over a partial projection) keeps
// dynalite's path: no table here has one. Remove with dynalite's streams.
import { MAX_ENTRIES_PER_READ } from './dynalite-iterators.ts';
import { fromDynalite } from './dynalite-modules.ts';

type Item = Record<string, unknown>;
type Range = Record<string, unknown> & { gt?: string; gte?: string; lt?: string; lte?: string };
interface Iterator {
  nextv(size: number): Promise<Item[]>;
  close(): Promise<void>;
}
interface Store {
  db: { values(range: Range): Iterator };
}
interface Table {
  KeySchema: { AttributeName: string }[];
}
interface Request {
  TableName: string;
  IndexName?: string;
  Limit?: number | null;
  Select?: string;
  ConsistentRead?: boolean;
  ReturnConsumedCapacity?: string;
  QueryFilter?: unknown;
  ScanFilter?: unknown;
  ConditionalOperator?: string;
  AttributesToGet?: unknown;
  _filter?: { expression: unknown };
  _projection?: { paths: unknown };
}
type Callback = (error: unknown, result?: Item) => void;
type QueryTable = (
  store: Store,
  table: Table,
  data: Request,
  opts: Range,
  isLocal: boolean | undefined,
  fetchFromItemDb: boolean,
  startKeyNames: string[],
  cb: Callback,
) => void;
interface DynaliteDb {
  queryTable: QueryTable;
  itemSize(item: Item, compress?: boolean, addMetaSize?: boolean, rangeKey?: string): number;
  matchesExprFilter(item: Item, expression: unknown): boolean;
  matchesFilter(item: Item, filter: unknown, conditionalOperator?: string): boolean;
  mapPaths(paths: unknown, item: Item): Item;
}

const dynaliteDb = fromDynalite('./db') as DynaliteDb;
const libraryQueryTable = dynaliteDb.queryTable;
const MAX_PAGE_BYTES = 1024 * 1024;

// Key layout of dynalite's db/index.js: `<sub-database>~<key>` in one LevelDB (as in
// dynalite-durable-writes.ts), and its prefixed wrapper's createValueStream's range, exactly.
const subDatabase = (data: Request, isLocal: boolean | undefined) =>
  data.IndexName
    ? `index-${isLocal ? 'local' : 'global'}~${data.TableName}~${data.IndexName}~`
    : `item-${data.TableName}~`;
const prefixed = (prefix: string, opts: Range): Range => {
  const range = { ...opts };
  if (range.gte) range.gte = prefix + range.gte;
  else if (range.gt) range.gt = prefix + range.gt;
  else range.gte = prefix;
  if (range.lte) range.lte = prefix + range.lte;
  else if (range.lt) range.lt = prefix + range.lt;
  else range.lt = `${prefix}\xFF`;
  return range;
};

const readPage = async (
  iterator: Iterator,
  table: Table,
  data: Request,
  isLocal: boolean | undefined,
  startKeyNames: string[],
) => {
  const rangeKey = table.KeySchema[1]?.AttributeName;
  const calculateCapacity = data.ReturnConsumedCapacity === 'TOTAL' || data.ReturnConsumedCapacity === 'INDEXES';
  let tableCapacity = 0;
  let indexCapacity = 0;
  let size = 0;
  let count = 0;
  let items: Item[] = [];
  // dynalite's takeWhile: an entry is taken while fewer than Limit and under 1 MB were taken
  // (compared as it compares, an absent Limit never reached).
  const full = () => count >= (data.Limit as number) || size >= MAX_PAGE_BYTES;
  try {
    let entries = await iterator.nextv(MAX_ENTRIES_PER_READ);
    while (entries.length && !full()) {
      for (const val of entries) {
        if (full()) break;
        if (calculateCapacity) {
          if (data.IndexName) indexCapacity += dynaliteDb.itemSize(val);
          else tableCapacity += dynaliteDb.itemSize(val);
        }
        count++;
        size += dynaliteDb.itemSize(val, true, true, rangeKey);
        items.push(val);
      }
      if (!full()) entries = await iterator.nextv(MAX_ENTRIES_PER_READ);
    }
  } finally {
    // dynalite ignores an error closing the iterator, as here; a read's error is the answer's.
    await iterator.close().catch(() => {});
  }

  // From here on dynalite's `join` callback, unchanged.
  const lastItem = items[items.length - 1];
  const queryFilter = data.QueryFilter || data.ScanFilter;
  const filter = data._filter;
  if (filter) items = items.filter((val) => dynaliteDb.matchesExprFilter(val, filter.expression));
  else if (queryFilter)
    items = items.filter((val) => dynaliteDb.matchesFilter(val, queryFilter, data.ConditionalOperator));
  const result: Item = { ScannedCount: count };
  if (full()) {
    if (data.Limit) items.splice(data.Limit);
    if (lastItem) {
      const key: Item = {};
      for (const attr of startKeyNames) key[attr] = lastItem[attr];
      result.LastEvaluatedKey = key;
    }
  }
  const paths = data._projection ? data._projection.paths : data.AttributesToGet;
  if (paths) items = items.map((item) => dynaliteDb.mapPaths(paths, item));
  result.Count = items.length;
  if (data.Select !== 'COUNT') result.Items = items;
  if (calculateCapacity) {
    const units = (bytes: number) => Math.ceil(bytes / 1024 / 4) * (data.ConsistentRead ? 1 : 0.5);
    const tableUnits = units(tableCapacity);
    const indexUnits = units(indexCapacity);
    const consumed: Item = { CapacityUnits: tableUnits + indexUnits, TableName: data.TableName };
    if (data.ReturnConsumedCapacity === 'INDEXES') {
      consumed.Table = { CapacityUnits: tableUnits };
      if (data.IndexName)
        consumed[isLocal ? 'LocalSecondaryIndexes' : 'GlobalSecondaryIndexes'] = {
          [data.IndexName]: { CapacityUnits: indexUnits },
        };
    }
    result.ConsumedCapacity = consumed;
  }
  return result;
};

dynaliteDb.queryTable = (store, table, data, opts, isLocal, fetchFromItemDb, keyNames, cb) => {
  if (fetchFromItemDb) return libraryQueryTable(store, table, data, opts, isLocal, fetchFromItemDb, keyNames, cb);
  // Opened here, as dynalite opens its stream: a store that is not open throws to the caller as there.
  const iterator = store.db.values(prefixed(subDatabase(data, isLocal), opts));
  readPage(iterator, table, data, isLocal, keyNames).then(
    (result) => cb(null, result),
    (error) => cb(error),
  );
};
