// A loopback HTTP proxy in front of a DynamoDB endpoint: it counts the requests on the
// wire by operation and table, and can answer some of them with DynamoDB's own 500
// instead of passing them on. For tests and measurements of what a request costs.
import { createServer, type IncomingMessage, request } from 'node:http';
import { listenOnLoopback } from './loopback.ts';

interface WireRequest {
  /** `PutItem`, `GetItem`… from X-Amz-Target. */
  operation: string;
  table: string;
  /** The index a Query or Scan reads, when it reads one. */
  index?: string;
}

export interface DynamoDBProxy {
  endpoint: string;
  /** Every request passed on or failed, in order, since the last `reset`. */
  requests: WireRequest[];
  reset(): void;
  /** Requests for which this returns true get a 500 InternalServerError (the SDK retries those). */
  failWhen: ((request: WireRequest) => boolean) | undefined;
  /** Requests for which this returns true are passed on, and once answered, answered with a 500: a lost answer. */
  loseAnswerWhen: ((request: WireRequest) => boolean) | undefined;
  close(): Promise<void>;
}

const readAll = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export const startDynamoDBProxy = async (target: string): Promise<DynamoDBProxy> => {
  const upstream = new URL(target);
  const socketPath = upstream.searchParams.get('socket') ?? undefined;
  const forwarded = (req: IncomingMessage) => ({ method: req.method, path: req.url, headers: req.headers });
  const proxy: DynamoDBProxy = {
    endpoint: '',
    requests: [],
    reset: () => {
      proxy.requests = [];
    },
    failWhen: undefined,
    loseAnswerWhen: undefined,
    close: async () => undefined,
  };
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    let table = 'unknown';
    let index: string | undefined;
    try {
      const { TableName, IndexName } = JSON.parse(body.toString('utf8')) as { TableName?: string; IndexName?: string };
      table = String(TableName ?? 'unknown');
      index = IndexName;
    } catch {}
    const wire = {
      operation: String(req.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, ''),
      table,
      ...(index !== undefined && { index }),
    };
    proxy.requests.push(wire);
    const fail = () => {
      res.writeHead(500, { 'Content-Type': 'application/x-amz-json-1.0' });
      res.end(
        JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal error' }),
      );
    };
    if (proxy.failWhen?.(wire)) return fail();
    const loseAnswer = proxy.loseAnswerWhen?.(wire) ?? false;
    const forward = request(
      // To the store's socket when the target names one (the local stage's functions' own path), else its port.
      { ...(socketPath ? { socketPath } : { host: upstream.hostname, port: upstream.port }), ...forwarded(req) },
      (answer) => {
        if (loseAnswer) {
          answer.resume();
          answer.on('end', fail);
          return;
        }
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    forward.end(body);
  });
  Object.assign(proxy, await listenOnLoopback(server));
  return proxy;
};
