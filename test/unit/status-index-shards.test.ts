// N of the status index: synth refuses a stage setting below the committed record. At run time
// a lower N loses nothing (shared/dynamodb/shard-count.ts, test/integration/shard-count.test.ts).
import { describe, expect, test } from 'vitest';
import { DEPLOYED_STAGES, stageSettings } from '../../infra/stages.ts';
import { checkStatusIndexShards, STATUS_INDEX_SHARDS_EVER } from '../../infra/status-index-shards.ts';
import { statusShardKey, statusShardsFrom } from '../../shared/dynamodb/status-shards.ts';

describe('synth', () => {
  test.each(DEPLOYED_STAGES)('%s: the setting equals its record', (stage) => {
    expect(() => checkStatusIndexShards(stageSettings[stage])).not.toThrow();
    expect(stageSettings[stage].statusIndexShards).toBe(STATUS_INDEX_SHARDS_EVER[stage]);
  });

  test('lowering N is refused with the reason', () => {
    const ever = { staging: 4, production: 8 };
    expect(() => checkStatusIndexShards({ stage: 'production', statusIndexShards: 4 }, ever)).toThrow(
      /statusIndexShards of production is 4, below 8.*vanish from filtered listings.*N may only grow/,
    );
  });

  test('raising N without the record is refused, so that the record always holds the largest N', () => {
    expect(() =>
      checkStatusIndexShards({ stage: 'staging', statusIndexShards: 2 }, { staging: 1, production: 1 }),
    ).toThrow(/record it in infra\/status-index-shards.ts/);
    expect(() =>
      checkStatusIndexShards({ stage: 'staging', statusIndexShards: 2 }, { staging: 2, production: 1 }),
    ).not.toThrow();
  });

  test('N is a positive integer', () => {
    for (const bad of [0, -1, 1.5])
      expect(() => checkStatusIndexShards({ stage: 'staging', statusIndexShards: bad })).toThrow(/positive integer/);
  });
});

describe('the key function', () => {
  test('"<status>#<id mod N>", and N from the functions\' environment (1 when unset)', () => {
    expect(statusShardKey('sold', 9007199254740991, 4)).toBe('sold#3');
    expect(statusShardKey('available', 12, 1)).toBe('available#0');
    expect(statusShardsFrom({})).toBe(1);
    expect(statusShardsFrom({ PETS_STATUS_SHARDS: '4' })).toBe(4);
    expect(() => statusShardsFrom({ PETS_STATUS_SHARDS: '0' })).toThrow(/positive integer/);
  });
});
