// listPets' cursor secret as deployed: read from the AWS Parameters and Secrets Lambda Extension's
// HTTP endpoint on localhost (shared/lambda/cursor-secret.ts), here a loopback stand-in that
// answers as AWS documents the extension does:
// https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html
// (GET /secretsmanager/get?secretId=…, the X-Aws-Parameters-Secrets-Token header holding the
// function's AWS_SESSION_TOKEN, GetSecretValue's JSON answer; port PARAMETERS_SECRETS_EXTENSION_HTTP_PORT).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import {
  CONTAINER_CACHE_SECONDS,
  CURSOR_SECRET_ARN_ENV,
  CURSOR_SECRET_ENV,
  cursorSecret,
} from '../../shared/lambda/cursor-secret.ts';

const TOKEN = 'session-token-of-the-function';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:CursorSecret1-AbCdEf';
const VALUE = 'the-cursor-secret-0123456789abcdefghijklmnopqrstuvwxyz';

let server: Server;
let asked: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
let answer: { status: number; body: string } = { status: 200, body: '' };

beforeAll(async () => {
  server = createServer((request, response) => {
    asked.push({ url: request.url!, headers: request.headers });
    // The extension refuses a request without the function's token.
    if (request.headers['x-aws-parameters-secrets-token'] !== TOKEN) return response.writeHead(401).end();
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vi.stubEnv('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT', String((server.address() as AddressInfo).port));
  vi.stubEnv('AWS_SESSION_TOKEN', TOKEN);
  vi.stubEnv(CURSOR_SECRET_ENV, undefined);
});
afterAll(() => {
  vi.unstubAllEnvs();
  server.close();
});
afterEach(() => {
  vi.useRealTimers();
  asked = [];
});

const secretOf = (arn: string, value: string) =>
  JSON.stringify({ ARN: arn, Name: 'CursorSecret1', SecretString: value, VersionStages: ['AWSCURRENT'] });

test('reads the secret by its ARN, with the token header, and keeps it a minute', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.stubEnv(CURSOR_SECRET_ARN_ENV, ARN);
  answer = { status: 200, body: secretOf(ARN, VALUE) };
  expect(await cursorSecret()).toBe(VALUE);
  expect(asked).toHaveLength(1);
  expect(new URL(asked[0]!.url, 'http://localhost').pathname).toBe('/secretsmanager/get');
  expect(new URL(asked[0]!.url, 'http://localhost').searchParams.get('secretId')).toBe(ARN);

  // Within the container's minute: no call; past it, the extension again (which has its own cache).
  vi.advanceTimersByTime((CONTAINER_CACHE_SECONDS - 1) * 1000);
  expect(await cursorSecret()).toBe(VALUE);
  expect(asked).toHaveLength(1);
  answer = { status: 200, body: secretOf(ARN, `${VALUE}-new`) };
  vi.advanceTimersByTime(2000);
  expect(await cursorSecret()).toBe(`${VALUE}-new`);
  expect(asked).toHaveLength(2);
});

test("the extension's refusal fails the invocation with its status, and nothing is kept", async () => {
  const arn = `${ARN}-refused`;
  vi.stubEnv(CURSOR_SECRET_ARN_ENV, arn);
  answer = { status: 400, body: 'not ready to serve traffic, please wait' };
  await expect(cursorSecret()).rejects.toThrow(/secrets extension answered 400: not ready/);
  answer = { status: 200, body: JSON.stringify({ ARN: arn, Name: 'x' }) };
  await expect(cursorSecret()).rejects.toThrow(/not a secret string \(no SecretString\)/);
  answer = { status: 200, body: secretOf(arn, VALUE) };
  expect(await cursorSecret()).toBe(VALUE);
  expect(asked).toHaveLength(3);
});

test('without the token the stand-in refuses, as the extension does: the function sends its own', async () => {
  const arn = `${ARN}-token`;
  vi.stubEnv(CURSOR_SECRET_ARN_ENV, arn);
  vi.stubEnv('AWS_SESSION_TOKEN', 'another-token');
  answer = { status: 200, body: secretOf(arn, VALUE) };
  await expect(cursorSecret()).rejects.toThrow(/answered 401/);
  expect(asked[0]!.headers['x-aws-parameters-secrets-token']).toBe('another-token');
  vi.stubEnv('AWS_SESSION_TOKEN', TOKEN);
});
