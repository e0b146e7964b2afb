// A proxy in front of DynamoDB that lets a call land but loses its answer: it forwards
// everything, and holds back the answer to the first call of `operation` past the SDK's request
// timeout, so that the SDK retries a call that already took effect.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DYNAMODB_TIME_BUDGET } from '../../shared/dynamodb/client.ts';

export interface LostAnswerProxy {
  endpoint: string;
  close(): void;
}

export const startLostAnswerProxy = async (upstreamEndpoint: string, operation: string): Promise<LostAnswerProxy> => {
  const upstream = new URL(upstreamEndpoint);
  let delayed = 0;
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const matches = String(req.headers['x-amz-target']).endsWith(`.${operation}`);
      const forward = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            const reply = () => {
              if (res.destroyed) return;
              res.writeHead(answer.statusCode!, answer.headers);
              res.end(Buffer.concat(body));
            };
            if (matches && delayed++ === 0) setTimeout(reply, DYNAMODB_TIME_BUDGET.requestTimeoutMs + 500);
            else reply();
          });
        },
      );
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => {
      proxy.closeAllConnections();
      proxy.close();
    },
  };
};
