// The key tool: `npm run keys -- create|list|revoke … [--stage local|staging|production]`.
// A key is printed once, at creation, and stored only as its SHA-256 hash.
import { parseArgs } from 'node:util';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { createKeysRepository, type KeysRepository } from '../../shared/dynamodb/keys-repository.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';
import { DataDirInUseError, lockDataDir, readOwner } from '../../infra/local/data-dir.ts';
import { ensureTables, LOCAL_AWS_ENV, startEmbeddedDynamoDB } from '../../infra/local/embedded-dynamodb.ts';
import { DEPLOYED_STAGES, STACK_OUTPUTS, stackName, type DeployedStage } from '../../infra/stages.ts';

const USAGE = `Usage: npm run keys -- <command> [--stage local|staging|production]
  create --label <who or what the key is for>   issue a key (printed once)
  list                                          list keys (never the keys themselves)
  revoke <keyId>                                revoke a key by its id
The local stage uses PETSTORE_DATA_DIR (default .data); a deployed stage uses your AWS credentials.`;

const fail = (message: string): never => {
  console.error(`keys: ${message}`);
  process.exit(1);
};

/** Runs `work` against the local stage's keys, through the running server's DynamoDB when there is one. */
const withLocalKeys = async <T>(work: (keys: KeysRepository) => Promise<T>): Promise<T> => {
  // Empty means unset: resolving "" would take the current directory as the data directory.
  const dataDir = process.env.PETSTORE_DATA_DIR || '.data';
  Object.assign(process.env, LOCAL_AWS_ENV);
  const owner = readOwner(dataDir);
  if (owner?.owner === 'server') {
    if (!owner.dynamodbEndpoint) fail('the local server is starting; try again in a moment');
    return work(localKeys(owner.dynamodbEndpoint!));
  }
  let lock: ReturnType<typeof lockDataDir>;
  try {
    lock = lockDataDir(dataDir, 'key tool');
  } catch (error) {
    return fail(error instanceof DataDirInUseError ? error.message : String(error));
  }
  const dynamodb = await startEmbeddedDynamoDB(lock!.dir);
  try {
    await ensureTables(dynamodb.endpoint);
    return await work(localKeys(dynamodb.endpoint));
  } finally {
    await dynamodb.close();
    lock!.release();
  }
};

const localKeys = (endpoint: string): KeysRepository => {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  return createKeysRepository(createDocumentClient(), keysTable.name);
};

/** The deployed stage's keys table, found from its stack's outputs. */
const deployedKeys = async (stage: DeployedStage): Promise<KeysRepository> => {
  // Loaded only here: the local stage, the common case, should not pay for the CloudFormation client.
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const { Stacks } = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: stackName(stage) }));
  const tableName = Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === STACK_OUTPUTS.keysTableName)?.OutputValue;
  if (!tableName) fail(`stack ${stackName(stage)} has no ${STACK_OUTPUTS.keysTableName} output; is it deployed?`);
  return createKeysRepository(createDocumentClient(), tableName!);
};

const run = async (keys: KeysRepository, command: string, args: { label?: string; keyId?: string }, stage: string) => {
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
      console.table(all.map(({ keyId, label, createdAt, revokedAt }) => ({ keyId, label, createdAt, revokedAt: revokedAt ?? '' })));
      return;
    }
    case 'revoke': {
      if (!args.keyId) fail('revoke needs the key id, e.g. npm run keys -- revoke key_AbC123xYz0');
      if (!(await keys.revoke(args.keyId!))) fail(`no key ${args.keyId} on stage ${stage}`);
      console.log(`Revoked ${args.keyId} on stage ${stage}.`);
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
      options: { stage: { type: 'string', default: 'local' }, label: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
if (stage === 'local') await withLocalKeys((keys) => run(keys, command!, args, stage));
else if ((DEPLOYED_STAGES as readonly string[]).includes(stage)) await run(await deployedKeys(stage as DeployedStage), command!, args, stage);
else fail(`unknown stage ${stage}: use local, staging or production`);
