// The key tool: `npm run keys -- create|list|rotate|revoke|sync … [--stage local|staging|production]`.
// A key is printed once, at creation, and stored only as its SHA-256 hash. docs/keys.md documents it.
import { parseArgs } from 'node:util';
import {
  DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS,
  DEPLOYED_STAGES,
  type DeployedStage,
  type KeyLimits,
} from '../../infra/stages.ts';
import { escapeControlCharacters } from '../../shared/api/control-characters.ts';
import { KEY_SCOPES, type KeyScope } from '../../shared/domain/api-keys.ts';
import { type KeyChangeAuthor, type KeysRepository, RotationRefused } from '../../shared/domain/stores.ts';
import { awsCaller, localAuthor } from './author.ts';
import { deployedKeys, deployedStageFailure } from './deployed-stage.ts';
import { fail } from './fail.ts';
import { keyTable, listEntry, parseDuration, parseExpiry } from './format.ts';
import { localAuthorizerCacheTtl, localKeyLimits, localServerCacheTtl, withLocalKeys } from './local-stage.ts';

const USAGE = `Usage: npm run keys -- <command> [options] [--stage local|staging|production]

Commands:
  create --label <text> [--scope read|write] [--expires <when>] [--reason <text>]
        Issue a key and print it, once. --scope: read (GET operations only) or write
        (every operation; the default). --expires: a date (2027-03-01, 00:00 UTC), a
        date-time (2027-03-01T12:00:00Z) or a duration from now (90d, 12h, 30m, 2w).
  list [--json]
        Every key: id, label, scope, state (active, expired, revoked; an expired key whose
        cached answer may still let it in says until when), created, expires, last use (to
        within 5 minutes), rotation links, limits and its last change (who, when, why).
        Never the keys.
  rotate <keyId> [--overlap <duration>] [--expires <when>] [--reason <text>]
        Issue a key with the same label, scope and limits and print it, once; the old
        key keeps working for the overlap (default 24h), then expires.
  revoke <keyId> [--reason <text>]
        Refuse the key from the next request on (the authorizer cache is flushed).

Each create, rotate and revoke is recorded with the key: who (your OS user on stage
local, your AWS identity on a deployed stage), when, and --reason; list shows it.
  sync
        Put keys issued before usage plans in the stage's usage plan.

Options:
  --stage <stage>   local (default), staging or production
  -h, --help        this text

Stage local uses PETSTORE_DATA_DIR (default .data); a deployed stage uses your AWS
credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and AWS_REGION.
Full guide: docs/keys.md.`;

const DEFAULT_OVERLAP = '24h';

interface Args {
  label?: string | undefined;
  keyId?: string | undefined;
  scope?: string | undefined;
  expires?: string | undefined;
  overlap?: string | undefined;
  reason?: string | undefined;
  json?: boolean | undefined;
}

const expiryOf = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined;
  const date = parseExpiry(text);
  if (!date)
    return fail(`--expires ${text}: give a date (2027-03-01), a date-time (2027-03-01T12:00:00Z) or a duration (90d)`);
  // Allowed (a key to check that expired keys are refused), but never by surprise.
  if (date.getTime() <= Date.now())
    console.error(`keys: warning: --expires ${text} is in the past: the key is refused from the start`);
  return date.toISOString();
};

const printKey = (key: string) => console.log(`Key (shown only now; store it in a secret manager): ${key}`);

/** How long an authorizer's cached answer may outlive a key's expiry on `stage`, in words. */
const cacheWindow = (stage: string): string => {
  const seconds = stage === 'local' ? localAuthorizerCacheTtl() : DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS;
  return seconds % 60 === 0 ? `${seconds / 60} minute(s)` : `${seconds} s`;
};

const run = async (
  keys: KeysRepository,
  command: string,
  args: Args,
  stage: string,
  limits: () => Promise<KeyLimits>,
  whoami: () => Promise<string>,
) => {
  // Asked only of a command that changes a key: a list needs no identity.
  const author = async (): Promise<KeyChangeAuthor> => ({ by: await whoami(), reason: args.reason });
  switch (command) {
    case 'create': {
      if (!args.label) return fail('create needs --label <who or what the key is for>');
      const scope = args.scope ?? 'write';
      if (!(KEY_SCOPES as readonly string[]).includes(scope)) return fail(`--scope ${scope}: use read or write`);
      const created = await keys.create(args.label, {
        scope: scope as KeyScope,
        expiresAt: expiryOf(args.expires),
        author: await author(),
      });
      const expiry = created.expiresAt ? `, expires ${created.expiresAt}` : '';
      console.log(
        `Created ${created.keyId} on stage ${stage} (label: ${escapeControlCharacters(created.label)}, scope: ${created.scope}${expiry}).`,
      );
      return printKey(created.key);
    }
    case 'list': {
      const all = await keys.list();
      // One usage plan per stage: every key has the same limits, each on its own.
      const stageLimits = all.length ? await limits() : undefined;
      // Locally, a cache only while a server runs: one started later begins empty.
      const cacheTtl = stage === 'local' ? localServerCacheTtl() : DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS;
      const entries = all.map((record) => listEntry(record, stageLimits!, cacheTtl));
      if (args.json) return console.log(JSON.stringify(entries, null, 2));
      if (!entries.length) return console.log(`No keys on stage ${stage}.`);
      return console.log(keyTable(entries));
    }
    case 'rotate': {
      if (!args.keyId) return fail('rotate needs the key id, e.g. npm run keys -- rotate key_AbC123xYz0 --overlap 24h');
      const overlap = args.overlap ?? DEFAULT_OVERLAP;
      const overlapMs = parseDuration(overlap);
      if (overlapMs === undefined)
        return fail(`--overlap ${overlap}: give a duration such as 24h, 90m or 7d (0s: none)`);
      try {
        const rotated = await keys.rotate(args.keyId, {
          oldExpiresAt: new Date(Date.now() + overlapMs).toISOString(),
          expiresAt: expiryOf(args.expires),
          author: await author(),
        });
        if (!rotated) return fail(`no key ${args.keyId} on stage ${stage}`);
        const { old, created } = rotated;
        console.log(
          `Rotated ${old.keyId} to ${created.keyId} on stage ${stage} (label: ${escapeControlCharacters(created.label)}, scope: ${created.scope ?? 'write'}).`,
        );
        // Expired now (--overlap 0, or an expiry already past): no "keeps working until" a moment gone.
        if (Date.parse(old.expiresAt!) <= Date.now())
          console.log(
            `${old.keyId} has expired (at ${old.expiresAt}): it is refused, though an answer the authorizer cached ` +
              `before may let it in for up to ${cacheWindow(stage)}; to shut it out at once: npm run keys -- revoke ${old.keyId}${stage === 'local' ? '' : ` --stage ${stage}`}`,
          );
        else console.log(`${old.keyId} keeps working until ${old.expiresAt}; switch your clients before then.`);
        return printKey(created.key);
      } catch (error) {
        if (error instanceof RotationRefused) return fail(error.message);
        throw error;
      }
    }
    case 'revoke': {
      if (!args.keyId) return fail('revoke needs the key id, e.g. npm run keys -- revoke key_AbC123xYz0');
      // Revoking twice changes nothing: say so, and when it happened, rather than "Revoked" again.
      const existing = (await keys.list()).find((record) => record.keyId === args.keyId);
      if (existing?.revokedAt)
        return console.log(`${args.keyId} was already revoked on stage ${stage}, at ${existing.revokedAt}.`);
      if (!existing || !(await keys.revoke(args.keyId, await author())))
        return fail(`no key ${args.keyId} on stage ${stage}`);
      return console.log(`Revoked ${args.keyId} on stage ${stage}.`);
    }
    case 'sync': {
      const assigned = await keys.assignUsageKeys();
      return console.log(
        `${assigned.length} key(s) on stage ${stage} put in the usage plan: ${assigned.map((k) => k.keyId).join(', ')}`,
      );
    }
    default:
      return fail(`unknown command ${command}\n${USAGE}`);
  }
};

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        stage: { type: 'string', default: 'local' },
        label: { type: 'string' },
        scope: { type: 'string' },
        expires: { type: 'string' },
        overlap: { type: 'string' },
        reason: { type: 'string' },
        json: { type: 'boolean' },
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
const args: Args = { ...values, label: values.label?.trim(), reason: values.reason?.trim() || undefined, keyId };
if (stage === 'local') await withLocalKeys((keys) => run(keys, command!, args, stage, localKeyLimits, localAuthor));
else if ((DEPLOYED_STAGES as readonly string[]).includes(stage)) {
  try {
    const { keys, limits } = await deployedKeys(stage as DeployedStage);
    await run(keys, command!, args, stage, limits, () => awsCaller());
  } catch (error) {
    fail(deployedStageFailure(error, stage as DeployedStage));
  }
} else fail(`unknown stage ${stage}: use local, staging or production`);
