// Crash safety of the embedded DynamoDB's tables. dynalite 4.0.0 answers CreateTable with
// the table written CREATING and marks it ACTIVE from a timer; a process killed between
// the two (a first `npm start` stopped with kill -9) left the table CREATING on disk for
// good: DescribeTable said so, every read and write of it was ResourceNotFoundException,
// and dynalite refuses both CreateTable and DeleteTable on it. Before dynalite opens a
// store, the data directory's lock held, no creation can be under way, so a table still
// CREATING is that leftover: it is given the ACTIVE status the timer would have written.
// Remove when dynalite makes a table ACTIVE at once, or on opening a store.
import { fromLevel } from './dynalite-modules.ts';

interface TableRecord {
  TableStatus: string;
  GlobalSecondaryIndexes?: Array<{ IndexStatus: string }>;
}
interface LevelStore {
  open(): Promise<void>;
  close(): Promise<void>;
  iterator(options: { gt: string; lt: string }): AsyncIterable<[string, TableRecord]>;
  put(key: string, value: TableRecord, options: { sync: boolean }): Promise<void>;
}
type LevelClass = new (path: string, options: { valueEncoding: 'json' }) => LevelStore;

// dynalite's own LevelDB class.
const { ClassicLevel } = fromLevel('classic-level') as {
  ClassicLevel: LevelClass;
};

/** Marks ACTIVE every table a killed process left CREATING in the store at `path`; returns their names. */
export const finishTableCreation = async (path: string): Promise<string[]> => {
  const store = new ClassicLevel(path, { valueEncoding: 'json' });
  await store.open();
  const finished: string[] = [];
  try {
    // dynalite keeps each table's description under `table~<name>` (its db/index.js).
    for await (const [key, table] of store.iterator({ gt: 'table~', lt: 'table~\uffff' })) {
      if (table.TableStatus !== 'CREATING') continue;
      table.TableStatus = 'ACTIVE';
      for (const index of table.GlobalSecondaryIndexes ?? []) index.IndexStatus = 'ACTIVE';
      await store.put(key, table, { sync: true });
      finished.push(key.slice('table~'.length));
    }
  } finally {
    await store.close();
  }
  return finished;
};
