// The key tool: `npm run keys -- create|list|revoke … [--stage local|staging|production]`.
// A key is printed once, at creation, and stored only as its SHA-256 hash.
import { parseArgs } from 'node:util';
import { DEPLOYED_STAGES, type DeployedStage, type KeyLimits } from '../../infra/stages.ts';
import type { KeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { deployedKeys, deployedStageFailure } from './deployed-stage.ts';
import { fail } from './fail.ts';
import { localKeyLimits, withLocalKeys } from './local-stage.ts';

const USAGE = `Usage: npm run keys -- <command> [--stage local|staging|production]
  create --label <who or what the key is for>   issue a key (printed once)
  list                                          list keys (never the keys themselves)
  revoke <keyId>                                revoke a key by its id
  sync                                          put keys issued before usage plans in the plan
The local stage uses PETSTORE_DATA_DIR (default .data); a deployed stage uses your AWS credentials.`;

/** `20/s, burst 40, 100000/day`: what each key of the stage may do. */
const describeLimits = ({ rateLimit, burstLimit, quotaPerDay }: KeyLimits) =>
  `${rateLimit}/s, burst ${burstLimit}${quotaPerDay === undefined ? '' : `, ${quotaPerDay}/day`}`;

const run = async (
  keys: KeysRepository,
  command: string,
  args: { label?: string; keyId?: string },
  stage: string,
  limits: () => Promise<KeyLimits>,
) => {
  switch (command) {
    case 'create': {
      if (!args.label) fail('create needs --label <who or what the key is for>');
      const created = await keys.create(args.label!);
      console.log(`Created ${created.keyId} on stage ${stage} (label: ${created.label}).`);
      console.log(`Key (shown only now; store it in a secret manager): ${created.key}`);
      return;
    }
    case 'list': {
      const all = await keys.list();
      if (!all.length) return console.log(`No keys on stage ${stage}.`);
      // One usage plan per stage: every key has the same limits, each on its own.
      const each = describeLimits(await limits());
      console.table(
        all.map(({ keyId, label, createdAt, revokedAt }) => ({
          keyId,
          label,
          createdAt,
          revokedAt: revokedAt ?? '',
          limits: revokedAt ? '' : each,
        })),
      );
      return;
    }
    case 'revoke': {
      if (!args.keyId) fail('revoke needs the key id, e.g. npm run keys -- revoke key_AbC123xYz0');
      if (!(await keys.revoke(args.keyId!))) fail(`no key ${args.keyId} on stage ${stage}`);
      console.log(`Revoked ${args.keyId} on stage ${stage}.`);
      return;
    }
    case 'sync': {
      const assigned = await keys.assignUsageKeys();
      console.log(
        `${assigned.length} key(s) on stage ${stage} put in the usage plan: ${assigned.map((k) => k.keyId).join(', ')}`,
      );
      return;
    }
    default:
      fail(`unknown command ${command}\n${USAGE}`);
  }
};

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        stage: { type: 'string', default: 'local' },
        label: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();
const [command, keyId] = positionals;
if (values.help || !command) {
  console.log(USAGE);
  process.exit(command || values.help ? 0 : 1);
}
const stage = values.stage!;
const args = { label: values.label?.trim(), keyId };
if (stage === 'local') await withLocalKeys((keys) => run(keys, command!, args, stage, localKeyLimits));
else if ((DEPLOYED_STAGES as readonly string[]).includes(stage)) {
  try {
    const { keys, limits } = await deployedKeys(stage as DeployedStage);
    await run(keys, command!, args, stage, limits);
  } catch (error) {
    fail(deployedStageFailure(error, stage as DeployedStage));
  }
} else fail(`unknown stage ${stage}: use local, staging or production`);
