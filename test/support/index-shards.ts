// N of the status index the listing tests run with: CI runs them at 1 (npm test) and again at
// 4 (.ci/run: PETSTORE_INDEX_SHARDS=4), the variable the local stage itself reads.
export const TEST_INDEX_SHARDS = Number(process.env.PETSTORE_INDEX_SHARDS ?? 1);
