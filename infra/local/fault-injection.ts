// A crash on purpose, for the tests that prove the local stage loses and duplicates nothing
// whatever moment it dies at (test/e2e/exactly-once.test.ts): with PETSTORE_CRASH_AFTER_WRITES=N
// the process kills itself (SIGKILL: no handler, no flush, as `kill -9`) right after the Nth
// item write to the embedded DynamoDB is on disk, before its answer leaves. Only the writes a
// create makes are counted (animals, the id counter, idempotency records), not the keys the
// server registers at start. Unset, nothing is counted.
const CRASH_AFTER_WRITES = Number(process.env.PETSTORE_CRASH_AFTER_WRITES) || 0;
const COUNTED = /^item-(pets|counters|idempotency)~/;

let writes = 0;

/** Called once an item write (LevelDB key `key`) is synced. */
export const itemWritten = (key: string): void => {
  if (!CRASH_AFTER_WRITES || !COUNTED.test(key)) return;
  if (++writes >= CRASH_AFTER_WRITES) process.kill(process.pid, 'SIGKILL');
};
