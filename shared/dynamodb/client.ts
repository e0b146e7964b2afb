// shared/dynamodb — DynamoDB access: the client with its time budget (this file), the
// table definitions that the CDK stack and the local tables are both built from
// (tables.ts), and the repositories that implement shared/domain's ports. It imports
// shared/api and shared/domain, nothing of Lambda, CDK or the emulator.
//
// One DynamoDB client per container, with a time budget: a slow or throttling
// DynamoDB must become a 503 well inside the functions' timeout, never a hang.
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { ConfiguredRetryStrategy } from '@smithy/util-retry';
import { KeyObjectSha256 } from './sha256.ts';

/**
 * Worst case for one call: every attempt uses up its connect and response timeouts, plus the
 * back-offs between them: under half the functions' timeout (test/unit/dynamodb-budget.test.ts).
 * createPet makes two calls (id block, put), four with an Idempotency-Key; should several of
 * them each use up their budget, middy answers 504 before Lambda's deadline. DynamoDB answers
 * in single-digit milliseconds, so a response that takes requestTimeoutMs is a fault, not a slow day.
 */
export interface TimeBudget {
  readonly maxAttempts: number;
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly backoffMs: (attempt: number) => number;
}

export const DYNAMODB_TIME_BUDGET: TimeBudget = {
  maxAttempts: 3,
  connectionTimeoutMs: 500,
  requestTimeoutMs: 1000,
  backoffMs: (attempt) => 50 * 2 ** (attempt - 1),
};

/**
 * Set by the local stage only: its embedded DynamoDB shares the server's event loop, so on a
 * busy machine an answer can wait past the deployed timeout without anything being wrong. Deployed functions
 * never have it and keep the budget above.
 */
export const REQUEST_TIMEOUT_ENV = 'DYNAMODB_REQUEST_TIMEOUT_MS';

/**
 * Set by the local stage only: `<endpoint> <socket path>`, the Unix socket its embedded DynamoDB
 * serves that endpoint on (the data directory's permissions guard it, infra/local/dynamodb-socket.ts).
 * A connection to the endpoint's host and port goes to the socket instead (socketAgent), and a
 * request for it goes unsigned (socketSigner); any other goes where it is addressed, signed (a
 * test's proxy).
 */
export const SOCKET_PATH_ENV = 'DYNAMODB_ENDPOINT_SOCKET';

/** SOCKET_PATH_ENV's setting: the endpoint's host and port, and the socket that serves them. */
interface StoreSocket {
  hostname: string;
  port: string;
  path: string;
}
const storeSocket = (setting: string): StoreSocket | undefined => {
  const space = setting.indexOf(' ');
  if (space <= 0) return undefined;
  const { hostname, port } = new URL(setting.slice(0, space));
  return { hostname, port, path: setting.slice(space + 1) };
};
const boundFor = (socket: StoreSocket, host: unknown, port: unknown) =>
  host === socket.hostname && String(port) === socket.port;

/**
 * The SDK's agent settings (keep-alive, 50 sockets), connecting to the endpoint's host and port
 * through the socket. Decided per connection, not when the client is made: the SDK reads the
 * endpoint from the environment at its first call, which a test may have pointed elsewhere since.
 */
const socketAgent = (socket: StoreSocket) => {
  // Loaded here, not imported: a deployed function never has the setting, and its bundle's node:http
  // is an alias with only what it uses (infra/constructs/lambda-node-http.ts).
  const { Agent } = process.getBuiltinModule('node:http');
  const { createConnection } = process.getBuiltinModule('node:net');
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  const direct = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) =>
    boundFor(socket, options.host, options.port)
      ? createConnection({ path: socket.path }) // returned, as Node's own agent returns it: no callback
      : direct(options, callback);
  return agent;
};

/**
 * What the store's socket is sent instead of a signature. Nothing on the socket reads a signature:
 * the file system checked the caller when it connected (infra/local/dynamodb-socket.ts), so signing
 * there cost ~40 µs of CPU and ~18 KB of garbage a call for nothing (docs/performance.md). dynalite
 * still refuses a request without an Authorization header of SigV4's form and a date (it reads the
 * form, never the signature): these say plainly that the request is unsigned.
 */
const UNSIGNED_AUTHORIZATION = 'AWS4-HMAC-SHA256 Credential=unsigned, SignedHeaders=host, Signature=unsigned';

/**
 * `signer` for every request but those bound for the socket (the same host and port as socketAgent
 * decides, per request), which go with UNSIGNED_AUTHORIZATION: a request sent anywhere else, to a
 * test's proxy say, is signed as ever.
 */
type Signable = { hostname: string; port?: number | undefined; headers: Record<string, string> };
type Signer = { sign<R extends Signable>(request: R, options?: { signingDate?: Date }): Promise<R> };
const socketSigner = (socket: StoreSocket, sigV4: SignatureV4): Signer => {
  const signed = sigV4.sign.bind(sigV4) as Signer['sign']; // its request overload
  return {
    sign: (request, options) => {
      if (!boundFor(socket, request.hostname, request.port)) return signed(request, options);
      request.headers.authorization = UNSIGNED_AUTHORIZATION;
      request.headers['x-amz-date'] = (options?.signingDate ?? new Date()).toISOString().replace(/[-:]|\.\d{3}/g, '');
      return Promise.resolve(request);
    },
  };
};

const budgetFromEnvironment = (): TimeBudget => {
  const requestTimeoutMs = Number(process.env[REQUEST_TIMEOUT_ENV]);
  return Number.isInteger(requestTimeoutMs) && requestTimeoutMs > 0
    ? { ...DYNAMODB_TIME_BUDGET, requestTimeoutMs }
    : DYNAMODB_TIME_BUDGET;
};

/**
 * Per-call steps the functions have no use for: the SDK's logger step (there is no logger;
 * it still filters every input for it) and Lambda recursion detection (it guards SQS/SNS/
 * Lambda loops, not DynamoDB calls, and DynamoDB continues no trace). The
 * User-Agent step stays: Powertools' Idempotency places its own step after it.
 */
const UNNEEDED_MIDDLEWARE = ['loggerMiddleware', 'recursionDetectionMiddleware'];

/** Wraps the plain client before anything is built on it (X-Ray subsegments, shared/lambda). */
export type ClientInstrumentation = (client: DynamoDBClient) => DynamoDBClient;
/** The client as it is: no instrumentation (tests, tools). */
export const uninstrumented: ClientInstrumentation = (client) => client;

/** Where and as whom, when not from the environment (the functions' way): tests' own DynamoDBs. */
export type Connection = Pick<DynamoDBClientConfig, 'endpoint' | 'region' | 'credentials'>;

/**
 * A client with the budget, the SHA-256 of sha256.ts and one request signer for its life. The
 * SDK's default signer setting builds a new SignatureV4 for every call, copying the whole client
 * configuration into it (~19 µs and 18 KB a call, docs/performance.md); this is the same signer
 * made once: the SDK passes each call's signing region and service to `sign`, and its credentials
 * provider is the client's own (cached until they expire). `cacheMiddleware`: the SDK resolves
 * each command type's middleware once instead of on every call (its documented client setting,
 * SmithyConfiguration.cacheMiddleware: "modifying the middlewareStack ... after requests have been
 * made will not be recognized"; every step is added or removed here, before any call).
 */
export const plainClient = (
  budget: TimeBudget,
  instrument: ClientInstrumentation,
  cacheMiddleware: boolean,
  connection: Connection = {},
  /** Another client's, to share its connections (containerClient). */
  requestHandler?: DynamoDBClient['config']['requestHandler'],
): DynamoDBClient => {
  let signer: Signer | undefined;
  // The environment's socket goes with the environment's endpoint, never with a connection given.
  const socket = connection.endpoint === undefined ? storeSocket(process.env[SOCKET_PATH_ENV] ?? '') : undefined;
  const httpAgent = socket && socketAgent(socket);
  const client: DynamoDBClient = new DynamoDBClient({
    ...connection,
    retryStrategy: new ConfiguredRetryStrategy(budget.maxAttempts, budget.backoffMs),
    requestHandler: requestHandler ?? {
      connectionTimeout: budget.connectionTimeoutMs,
      requestTimeout: budget.requestTimeoutMs,
      // Without it the SDK only logs a warning and the call waits on, past the budget.
      throwOnRequestTimeout: true,
      ...(httpAgent && { httpAgent }),
    },
    // The SDK's SHA-256 but for its HMAC key, made a KeyObject once (sha256.ts): ~12 µs a call on Node 24.
    sha256: KeyObjectSha256,
    signer: async () => {
      if (signer) return signer;
      const sigV4 = new SignatureV4({
        credentials: client.config.credentials,
        region: client.config.region,
        service: 'dynamodb',
        sha256: KeyObjectSha256,
      });
      signer = socket ? socketSigner(socket, sigV4) : sigV4;
      return signer;
    },
    cacheMiddleware,
  });
  for (const name of UNNEEDED_MIDDLEWARE) client.middlewareStack.remove(name);
  return instrument(client);
};

/**
 * The client for the plain client's commands, with the handler cache: lib-dynamodb's commands
 * cannot run on it (each resolved handler would keep its first command's input; lib-dynamodb
 * refuses such a client, aws/aws-sdk-js-v3#7762 and #7801 would lift that), so the items
 * are marshalled with @aws-sdk/util-dynamodb by the repository that sends them (pets-repository.ts);
 * the keys and the idempotency records keep lib-dynamodb's (document-client.ts).
 */
export const createDynamoDBClient = (
  budget = DYNAMODB_TIME_BUDGET,
  instrument = uninstrumented,
  connection?: Connection,
): DynamoDBClient => plainClient(budget, instrument, true, connection);

let containerHandler: DynamoDBClient['config']['requestHandler'] | undefined;
/**
 * A client of the container's, with the budget its environment sets. The container's clients (the
 * animals' below, the document client of document-client.ts) share one request handler, so one
 * pool of connections: a keyed create's records ride the connection its animal's put opened.
 */
export const containerClient = (cacheMiddleware: boolean, instrument = uninstrumented): DynamoDBClient => {
  const client = plainClient(budgetFromEnvironment(), instrument, cacheMiddleware, {}, containerHandler);
  containerHandler ??= client.config.requestHandler;
  return client;
};

let sharedPlain: DynamoDBClient | undefined;
/** The container's plain client (the animals' repository), made on first use and reused by every invocation. */
export const dynamodbClient = (instrument?: ClientInstrumentation): DynamoDBClient =>
  (sharedPlain ??= containerClient(true, instrument));
