// A small closed-loop load generator: `concurrency` loops, each sending its next
// request as soon as the previous one is answered, over keep-alive connections.
// node:http rather than fetch: its per-request cost is lower, so the client takes
// less CPU away from the server on a two-core machine.
import { Agent, request } from 'node:http';

export interface RequestSpec {
  method: string;
  /** Appended to the base URL's path, e.g. `/pets?limit=20`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface LoadOptions {
  baseUrl: string;
  concurrency: number;
  durationMs: number;
  /** Stops earlier once this many requests were sent. */
  maxRequests?: number;
  /** The i-th request (0-based, across all loops). */
  next: (i: number) => RequestSpec;
  /** Sees every answer, e.g. to collect created ids. */
  onAnswer?: (answer: Answer, spec: RequestSpec, latencyMs: number) => void;
}

export interface LoadResult {
  latencies: number[];
  elapsedMs: number;
  statuses: Record<number, number>;
  /** Requests that got no HTTP answer at all (connection errors). */
  networkErrors: number;
}

export interface HttpClient {
  send(spec: RequestSpec): Promise<Answer>;
  close(): void;
}

export const httpClient = (baseUrl: string, maxSockets = 64): HttpClient => {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/$/, '');
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    send: (spec) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { ...spec.headers };
        if (spec.body !== undefined) headers['Content-Length'] ??= String(Buffer.byteLength(spec.body));
        const req = request(
          { agent, host: url.hostname, port: url.port, method: spec.method, path: prefix + spec.path, headers },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(spec.body);
      }),
    close: () => agent.destroy(),
  };
};

export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  const client = httpClient(options.baseUrl, options.concurrency);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let networkErrors = 0;
  let sent = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;

  const loop = async () => {
    while (performance.now() < deadline && sent < maxRequests) {
      const spec = options.next(sent++);
      const begun = performance.now();
      try {
        const answer = await client.send(spec);
        const latency = performance.now() - begun;
        latencies.push(latency);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        options.onAnswer?.(answer, spec, latency);
      } catch {
        networkErrors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  const elapsedMs = performance.now() - started;
  client.close();
  return { latencies, elapsedMs, statuses, networkErrors };
};

/** Runs `count` calls of `task`, at most `concurrency` at a time. */
export const inParallel = async (
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
};
