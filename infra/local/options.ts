// What `npm start` (server.ts) and `npm run dev` (dev.ts) take from their environment:
// every knob is a variable (README, Configuration), parsed once; a bad value stops the
// command with the variable's name.
import { isoNow } from '../../shared/observability/clock.ts';
import { Config, keyLimitsOf } from './config.ts';
import { developmentKeyFile, kept } from './development-key.ts';
import { type LocalStage, type LocalStageOptions, STAGE } from './stage.ts';
import { timestamped } from './timestamped.ts';

/** Prints `command: message` on stderr, after its time (timestamped.ts), and exits 1. */
export const failWith =
  (command: string) =>
  (message: string): never => {
    console.error(timestamped(`${command}: ${message}`));
    process.exit(1);
  };

/**
 * Why a start failed, for its one line: a taken port also says how to get another (the
 * EADDRINUSE alone sent people looking for what holds it, when any free port would do).
 */
export const cannotStart = (
  command: 'npm start' | 'npm run dev',
  error: Error,
  { port, host }: Pick<LocalStageOptions, 'port' | 'host'>,
): string =>
  (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
    ? `cannot start: ${host}:${port} is already in use (${error.message}). Stop what listens there ` +
      `(another ${command}?), or choose another port: PORT=${port === 3000 ? 3001 : port + 1} ${command}, ` +
      `or PORT=0 ${command} for any free one (it prints the address it got).`
    : `cannot start: ${error.message}`;

/** The stage's options from `environment`, access log lines on stdout (as CloudWatch would file them). */
export const stageOptionsFromEnvironment = (
  command: string,
  environment: NodeJS.ProcessEnv = process.env,
): LocalStageOptions => {
  const parsed = Config.safeParse(environment);
  if (!parsed.success)
    return failWith(command)(parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; '));
  const config = parsed.data;
  return {
    port: config.PORT,
    host: config.HOST,
    dataDir: config.PETSTORE_DATA_DIR,
    apiKey: config.PETSTORE_API_KEY,
    authorizerCacheTtlSeconds: config.PETSTORE_AUTHORIZER_CACHE_TTL,
    throttle: { rate: config.PETSTORE_THROTTLE_RATE, burst: config.PETSTORE_THROTTLE_BURST },
    functionConcurrency: { limit: config.PETSTORE_FUNCTION_CONCURRENCY, queue: config.PETSTORE_FUNCTION_QUEUE },
    pipelineDepth: config.PETSTORE_PIPELINE_DEPTH,
    keyLimits: keyLimitsOf(config),
    dynamodbRequestTimeoutMs: config.PETSTORE_DYNAMODB_TIMEOUT_MS,
    statusIndexShards: config.PETSTORE_INDEX_SHARDS,
    listingCacheTtlSeconds: config.PETSTORE_LISTING_CACHE_TTL,
    idleMemorySeconds: config.PETSTORE_IDLE_MEMORY_SECONDS,
    maxConnections: config.PETSTORE_MAX_CONNECTIONS,
    logLevel: config.LOG_LEVEL,
    // With the time it was written, as CloudWatch's @timestamp (the request's own is requestTime).
    // Written as text around the line's JSON: no wrapper object to make and serialize.
    accessLog: (line) => process.stdout.write(`{"accessLog":${JSON.stringify(line)},"timestamp":"${isoNow()}"}\n`),
  };
};

/**
 * Where the banner says the key is. On a terminal, the key itself: the person who started the
 * server reads it there. Anywhere else (CI, a container, `> file`) that output is a log, and no
 * log holds a key: the development key is named by its file (0600, in the data directory), a
 * PETSTORE_API_KEY by the variable that holds it.
 */
const keyShown = (key: string, dataDir: string, terminal: boolean): { where: string; header: string } => {
  if (terminal) return { where: key, header: `'Authorization: Bearer ${key}'` };
  const file = developmentKeyFile(dataDir);
  return kept(file) === key
    ? {
        where: `in ${file} (not printed: this output is not a terminal)`,
        header: `"Authorization: Bearer $(cat '${file}')"`,
      }
    : {
        where: 'the one in PETSTORE_API_KEY (not printed: this output is not a terminal)',
        header: '"Authorization: Bearer $PETSTORE_API_KEY"',
      };
};

/** What a start prints: the address, a usable key (or where it is), and what a crash left repaired. */
export const printBanner = (
  stage: Pick<LocalStage, 'baseUrl' | 'key' | 'keyRecord' | 'dataDir' | 'repairedIndexEntries'>,
  ...notes: string[]
): void => {
  const { baseUrl, key, keyRecord, dataDir, repairedIndexEntries } = stage;
  if (repairedIndexEntries)
    console.warn(
      timestamped(`repaired: removed ${repairedIndexEntries} listing entries a crash had left without their animal`),
    );
  if (keyRecord.revokedAt)
    console.warn(
      timestamped(
        `warning: PETSTORE_API_KEY (${keyRecord.keyId}) was revoked at ${keyRecord.revokedAt} and stays refused`,
      ),
    );
  const shown = keyShown(key, dataDir, process.stdout.isTTY === true);
  console.log(
    timestamped(
      [
        `Pet Store API (stage ${STAGE}) listening at ${baseUrl}`,
        `API key (${keyRecord.keyId}): ${shown.where}`,
        `Try: curl -H ${shown.header} ${baseUrl}/pets`,
        `API reference: ${new URL('/docs', baseUrl).href}`,
        `Data: ${dataDir}.`,
        ...notes,
      ].join('\n'),
    ),
  );
};

/**
 * Runs `close` once on SIGINT or SIGTERM, then exits 0. A terminal's Ctrl+C signals the whole
 * process group and npm forwards it again, so a second signal is expected during a stop and
 * must not cut it short; a third is someone insisting: exit at once, saying what that leaves.
 */
export const stopOnSignals = (close: () => Promise<void>): void => {
  let signals = 0;
  const stop = async () => {
    console.log(timestamped('stopping: finishing requests in flight'));
    await close();
    console.log(timestamped('stopped'));
    process.exit(0);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) void stop();
    else if (signals > 2) {
      console.error(
        timestamped(
          `stopped at once (${signal} a third time): requests in flight were cut; the next start takes over the data directory and repairs what they left`,
        ),
      );
      process.exit(1);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Under `npm start`, the script `exec`s node, so this process is npm's own child and gets the
  // SIGINT and SIGTERM npm forwards to it (a process manager may signal npm only; through a shell
  // in between, SIGINT never arrived and the server ran on). Should npm go away without
  // forwarding (SIGKILL), this process is handed to another parent: stop the same way.
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent && signals === 0) {
        signals = 1;
        void stop();
      }
    }, 250).unref();
  }
};
