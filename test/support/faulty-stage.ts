// A stage with one thing broken: an HTTP proxy in front of the local server that lets a
// test change each request before it goes on, and each response before it comes back.
// The smoke suite must notice every fault planted here (test/e2e/smoke.test.ts).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Exchange {
  method: string;
  /** Path and query, as the client sent them (the proxy's base path included). */
  url: URL;
  headers: Headers;
  body: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

export interface Fault {
  /** Changes the request on its way to the stage. */
  request?(exchange: Exchange): void;
  /** Changes the stage's answer on its way back; `exchange` is the request as it was sent. */
  response?(answer: Answer, exchange: Exchange): void;
}

export interface FaultyStage {
  /** The proxy's base address: the upstream's, with the proxy's host and port. */
  baseUrl: string;
  /** The fault in force; undefined: a faithful proxy. */
  fault: Fault | undefined;
  /** x-amzn-RequestId of every answer the client got. */
  requestIds: Set<string>;
  close(): Promise<void>;
}

const HOP_BY_HOP = ['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'content-encoding'];

const read = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export const startFaultyStage = async (upstreamBaseUrl: string): Promise<FaultyStage> => {
  const upstream = new URL(upstreamBaseUrl);
  const stage: FaultyStage = { baseUrl: '', fault: undefined, requestIds: new Set(), close: async () => {} };
  const server = createServer(async (request, response) => {
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers))
        if (value !== undefined && !HOP_BY_HOP.includes(name) && name !== 'host') headers.set(name, String(value));
      const exchange: Exchange = {
        method: request.method!,
        url: new URL(request.url!, upstream),
        headers,
        body: await read(request),
      };
      stage.fault?.request?.(exchange);
      const reply = await fetch(new URL(exchange.url.pathname + exchange.url.search, upstream), {
        method: exchange.method,
        headers: exchange.headers,
        body: ['GET', 'HEAD'].includes(exchange.method) ? null : exchange.body,
      });
      const answer: Answer = { status: reply.status, headers: new Headers(reply.headers), body: await reply.text() };
      for (const name of HOP_BY_HOP) answer.headers.delete(name);
      stage.fault?.response?.(answer, exchange);
      const requestId = answer.headers.get('x-amzn-requestid');
      if (requestId) stage.requestIds.add(requestId);
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(answer.body);
    } catch (error) {
      response.writeHead(599).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  stage.baseUrl = `http://127.0.0.1:${port}${upstream.pathname}`;
  stage.close = () => new Promise((resolve) => server.close(() => resolve()));
  return stage;
};
