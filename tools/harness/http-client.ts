// A plain HTTP client over keep-alive connections that returns whole answers (status,
// headers, body as sent), for the fuzzer, the soak's read-back and the benchmarks'
// sequential requests (autocannon makes the load); and a bounded parallel loop.
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
