// A DynamoDB endpoint that fails the way DynamoDB does, for fault tests: the JSON
// 1.0 error bodies of the real service, or a connection that never answers. (An
// unreachable DynamoDB needs no server: see closedPort.)
import { createServer, type IncomingMessage } from 'node:http';
import { listenOnLoopback } from '../../tools/harness/loopback.ts';

export type Fault =
  | 'throttling' // 400 ProvisionedThroughputExceededException
  | 'internal' // 500 InternalServerError
  | 'slow' // accepts the connection and the request, never answers
  | 'validation'; // 400 ValidationException: a fault of ours, not of DynamoDB

export interface FaultyDynamoDB {
  endpoint: string;
  fault: Fault;
  /** Requests received, by DynamoDB operation (from X-Amz-Target), since the last reset. */
  requests: string[];
  close(): Promise<void>;
}

const errors: Record<Exclude<Fault, 'slow'>, { status: number; type: string; message: (table: string) => string }> = {
  throttling: {
    status: 400,
    type: 'ProvisionedThroughputExceededException',
    message: (table) => `The level of configured provisioned throughput for the table ${table} was exceeded.`,
  },
  internal: { status: 500, type: 'InternalServerError', message: (table) => `Internal server error (table ${table})` },
  validation: {
    status: 400,
    type: 'ValidationException',
    message: (table) => `One or more parameter values were invalid: table ${table}`,
  },
};

const readJson = (req: IncomingMessage): Promise<Record<string, unknown>> =>
  new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(text) as Record<string, unknown>);
      } catch {
        resolve({});
      }
    });
  });

export const startFaultyDynamoDB = async (fault: Fault): Promise<FaultyDynamoDB> => {
  const state: FaultyDynamoDB = { endpoint: '', fault, requests: [], close: async () => undefined };
  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    state.requests.push(String(req.headers['x-amz-target'] ?? '').replace('DynamoDB_20120810.', ''));
    if (state.fault === 'slow') return; // never answers
    const { status, type, message } = errors[state.fault];
    const json = JSON.stringify({
      __type: `com.amazonaws.dynamodb.v20120810#${type}`,
      message: message(String(body.TableName)),
    });
    res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': 'FAKE0REQUEST0ID' });
    res.end(json);
  });
  Object.assign(state, await listenOnLoopback(server));
  return state;
};

/** An endpoint nothing listens on: a port just freed on loopback. */
export const closedPort = async (): Promise<string> => {
  const { endpoint, close } = await listenOnLoopback(createServer());
  await close();
  return endpoint;
};

/** The longest a call may take on a fault path: well inside the functions' 10 s timeout. */
export const FAULT_BUDGET_MS = 8000;

/** Words that must never reach a client: AWS error names and the fault tests' table names. */
export const FAULT_TEST_TABLES = {
  pets: 'PetStore-faults-PetsTable7QX',
  keys: 'PetStore-faults-KeysTable7QX',
  counters: 'PetStore-faults-CountersTable7QX',
};
export const LEAKS = [
  ...Object.values(FAULT_TEST_TABLES),
  'Exception',
  'InternalServerError',
  'TimeoutError',
  'ECONNREFUSED',
  'amazonaws',
  'FAKE0REQUEST0ID',
  ' at ',
];
