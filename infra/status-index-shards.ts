// The most shards each stage's status index has ever had, committed. Synth cannot ask a
// deployed stack (CI synthesizes without credentials), so this record is how it knows the
// previous N: an item keeps the shard `id mod N` it was written under. Readers cover the most
// shards any writer used (shared/dynamodb/shard-count.ts), but code older than that covered
// only 0..statusIndexShards-1, and a lower N would hide from it every animal on a higher shard.
// Raise a stage's entry together with its statusIndexShards (infra/stages.ts); never lower it
// while the stage's table holds data.
import type { DeployedStage, StageSettings } from './stages.ts';

export const STATUS_INDEX_SHARDS_EVER: Readonly<Record<DeployedStage, number>> = {
  staging: 1,
  production: 1,
};

/** Throws, so that synth stops, unless `settings.statusIndexShards` is a positive integer equal to the record. */
export const checkStatusIndexShards = (
  settings: Pick<StageSettings, 'stage' | 'statusIndexShards'>,
  ever: Readonly<Record<DeployedStage, number>> = STATUS_INDEX_SHARDS_EVER,
): void => {
  const { stage, statusIndexShards: shards } = settings;
  const highest = ever[stage];
  if (!Number.isInteger(shards) || shards < 1)
    throw new Error(`statusIndexShards of ${stage} must be a positive integer, not ${shards}`);
  if (shards < highest)
    throw new Error(
      `statusIndexShards of ${stage} is ${shards}, below ${highest}, the most its status index has had ` +
        '(infra/status-index-shards.ts): animals written to the shards above would vanish from filtered listings. ' +
        'N may only grow (docs/capacity.md).',
    );
  if (shards > highest)
    throw new Error(
      `statusIndexShards of ${stage} is ${shards}: record it in infra/status-index-shards.ts (STATUS_INDEX_SHARDS_EVER.${stage}), ` +
        'so that no later change can lower it unseen.',
    );
};
