// Drives every answer the local stage gives, each function's and API Gateway's own, failures
// included (a table deleted under a running function, then under the authorizer), and files
// the server's output as CloudWatch would. Used by request-logs.test.ts (the functions' and the
// authorizer's lines) and access-log-and-metrics.test.ts (the gateway's line, the metrics, the
// saved queries), each with a stage of its own.

import type { LogSource } from '../../infra/monitoring/queries.ts';
import { type OperationId, routes } from '../../shared/api/routes.ts';
import { keysTable, petsTable } from '../../shared/dynamodb/tables.ts';
import { REQUEST_SUMMARY_MESSAGE } from '../../shared/observability/log-fields.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { type SampleRequest, sampleHttpRequest, sampleRequests } from '../../tools/harness/sample-requests.ts';
import { bearer, call, type Reply, type RequestOptions, startServer, unknownKey } from '../e2e/support.ts';
import { embeddedDynamoDB, linesOf, type ParsedOutput, parseOutput } from './observability.ts';

export interface Exchange {
  reply: Reply;
  /** The function that answered; undefined when API Gateway answered by itself. */
  operation: OperationId | undefined;
  /** The request, and the status the contract gives its answer. */
  target: string;
  expected: number;
  requestId: string;
}

/** A function's (or the authorizer's) summary lines: one per request it answered. */
export const summariesOf = (parsed: ParsedOutput, source: LogSource) =>
  linesOf(parsed, source).filter((line) => line.message === REQUEST_SUMMARY_MESSAGE);

/** The exchanges a function answered (not API Gateway by itself). */
export const reachedFunctions = (exchanges: Exchange[]) =>
  exchanges.filter((e): e is Exchange & { operation: OperationId } => e.operation !== undefined);

/** The stage after every answer was driven: its output filed as CloudWatch would file it. */
interface ObservedStage {
  server: LocalServer;
  parsed: ParsedOutput;
  /** The id of the key the server printed, which every request but the refused ones used. */
  keyId: string;
  revokedKeyId: string;
  exchanges: Exchange[];
  /** Every key and Authorization header value sent: none may reach a log line. */
  secrets: string[];
}

let server: LocalServer;
const exchanges: Exchange[] = [];
const secrets: string[] = [];

/** Sends a request, and files its answer with the status the contract gives it. */
const send = async (
  operation: OperationId | undefined,
  expected: number,
  target: string,
  options: RequestOptions = {},
): Promise<Exchange> => {
  if (options.authorization) secrets.push(options.authorization);
  const reply = await call(server, target, options);
  const exchange = { reply, operation, expected, target, requestId: reply.headers.get('x-amzn-requestid')! };
  exchanges.push(exchange);
  return exchange;
};

/** An operation's sample as `send` takes it (tools/harness/sample-requests.ts). */
const sendSample = (operationId: OperationId, sample: SampleRequest & { status: number }) => {
  const { method, path, headers, body } = sampleHttpRequest(operationId, sample);
  return send(operationId, sample.status, path, { method, headers, ...(body !== undefined && { body }) });
};

/** Starts a server (DEBUG logs, EMF on, authorizer cache off), drives every answer, stops it. */
export const observeEveryAnswer = async (): Promise<ObservedStage> => {
  // Cache off: every request below runs the authorizer, so that each refusal and the fault
  // under it leave the authorizer's line (with the cache, a known key's line is on a miss only).
  server = await startServer({
    LOG_LEVEL: 'DEBUG',
    POWERTOOLS_METRICS_DISABLED: 'false',
    PETSTORE_AUTHORIZER_CACHE_TTL: '0',
  });
  const keyId = /API key \((key_\w+)\)/.exec(server.output())![1]!;
  const dynamodb = embeddedDynamoDB(server.dataDir);
  const revoked = await dynamodb.keys.create('revoked by the observability test');
  await dynamodb.keys.revoke(revoked.keyId);
  const unknown = unknownKey();
  secrets.push(server.key, bearer(server.key), revoked.key, unknown);

  const json = { 'Content-Type': 'application/json' };
  const created = await send('createPet', 201, '/pets', {
    method: 'POST',
    headers: json,
    body: '{"name":"Rex","categoryId":3}',
  });
  await send('createPet', 201, '/pets', {
    method: 'POST',
    headers: json,
    body: '{"name":"Tom","categoryId":4,"status":"sold"}',
  });
  // listPets: a filtered page, a lower-case scheme, refusals.
  await send('listPets', 200, '/pets?status=available&limit=1');
  await send('listPets', 200, '/pets', { authorization: `bEaReR ${server.key}` });
  // A follow-up page: its lines say a cursor was sent and where it resumes, never the cursor.
  const first = await send('listPets', 200, '/pets?limit=1');
  const next = new URL(/<([^>]+)>; rel="next"/.exec(first.reply.headers.get('link') ?? '')![1]!, server.baseUrl);
  secrets.push(next.searchParams.get('cursor')!);
  await send('listPets', 200, `${next.pathname.replace(/^\/v1/, '')}${next.search}`);
  await send('listPets', 400, '/pets?limit=0');
  await send('listPets', 400, '/pets?cursor=forged');
  // createPet: validation, media type, size.
  await send('createPet', 400, '/pets', { method: 'POST', headers: json, body: '{"name":"","categoryId":0}' });
  await send('createPet', 400, '/pets', { method: 'POST', headers: json, body: '{not json' });
  await send('createPet', 415, '/pets', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'Rex' });
  const tooLarge = JSON.stringify({ name: 'x'.repeat(17 * 1024), categoryId: 1 });
  await send('createPet', 413, '/pets', { method: 'POST', headers: json, body: tooLarge });
  // getPet (deprecated): found, missing, malformed.
  await send('getPet', 200, `/pets/${(created.reply.body as { id: number }).id}`);
  await send('getPet', 404, '/pets/9007199254740991');
  await send('getPet', 400, '/pets/01');
  // Every operation's sample requests (tools/harness/sample-requests.ts): its valid, invalid and absent ones.
  for (const { operationId } of routes)
    for (const sample of Object.values(sampleRequests[operationId])) await sendSample(operationId, sample);
  // API Gateway's own answers: no route, no key, a bad scheme, unknown and revoked keys.
  await send(undefined, 404, '/nowhere');
  await send(undefined, 404, '/pets', { method: 'DELETE' });
  await send(undefined, 401, '/pets', { authorization: null });
  await send(undefined, 401, '/pets', {
    authorization: `Basic ${Buffer.from(`user:${server.key}`).toString('base64')}`,
  });
  await send(undefined, 401, '/pets', { authorization: bearer(unknown) });
  await send(undefined, 401, '/pets/1', { authorization: bearer(revoked.key) });
  // Real faults, last: a table gone under a running function (500), then under the authorizer (503).
  await dynamodb.deleteTable(petsTable.name);
  await send('getPet', 500, '/pets/1');
  await dynamodb.deleteTable(keysTable.name);
  await send(undefined, 503, '/pets');
  dynamodb.client.destroy();

  // The access-log line is written once the response is sent: wait for the last one.
  const last = exchanges.at(-1)!.requestId;
  for (let i = 0; i < 100 && !server.output().includes(`"requestId":"${last}","keyId"`); i++)
    await new Promise((r) => setTimeout(r, 50));
  await server.stop();
  return { server, parsed: parseOutput(server.output()), keyId, revokedKeyId: revoked.keyId, exchanges, secrets };
};
