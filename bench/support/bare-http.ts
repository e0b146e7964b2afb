// The bare servers' HTTP side (bare-server.ts on our embedded DynamoDB, plain-bare-server.ts on
// plain dynalite): read the body, make the one call, answer its JSON; nothing else. Both floors
// share it so that they differ only in the store behind them.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_VERSION_PATH } from '../../shared/api/routes.ts';

type Answer = (method: string, url: URL, body: string) => Promise<{ statusCode: number; body: string }>;

/** Serves `answer` on a free loopback port, prints the banner the bench reads, and stops on SIGTERM. */
export const serveBare = async (answer: Answer, dynamodbEndpoint: string, stop: () => Promise<void>) => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://localhost'), Buffer.concat(chunks).toString('utf8'))
        .catch(() => ({ statusCode: 500, body: '{}' }))
        .then(({ statusCode, body }) => {
          res.writeHead(statusCode, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
          res.end(body);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  console.log(`DynamoDB at ${dynamodbEndpoint}`);
  console.log(`API key (a stand-in: the bare server takes none): pet_bare`);
  console.log(`listening at http://127.0.0.1:${(server.address() as AddressInfo).port}${API_VERSION_PATH}`);
  process.once('SIGTERM', async () => {
    server.close();
    server.closeAllConnections();
    await stop();
    process.exit(0);
  });
};
