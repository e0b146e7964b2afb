// Helpers for the end-to-end tests: a black-box client of the local server that
// checks what every response must carry, and the contract's error and Animal shapes.
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import { links as parseLinks } from '../../client/index.ts';
import type { OperationId } from '../../shared/api/routes.ts';
import { declaredWithoutContent } from '../../tools/harness/declared-answers.ts';
import { type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { type SampleRequest, sampleHttpRequest } from '../../tools/harness/sample-requests.ts';

export const MAX_SAFE_ID = 9007199254740991; // 2^53−1
export const STATUSES = ['available', 'pending', 'sold'] as const;
export type Status = (typeof STATUSES)[number];

export interface Animal {
  id: number;
  name: string;
  categoryId: number;
  status: Status;
}

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  /** The URL the request went to, for resolving relative links. */
  url: string;
}

export interface RequestOptions {
  method?: string;
  /** The whole Authorization header; `null` sends none. Default: `Bearer <the server's key>`. */
  authorization?: string | null;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export const bearer = (key: string) => `Bearer ${key}`;

/** What the contract says a key looks like. */
export const KEY_FORMAT = /^pet_[0-9A-Za-z]{32,}$/;

/** A well-formed key that no server issued. */
export const unknownKey = (length = 43): string => {
  const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return `pet_${Array.from({ length }, () => base62[randomInt(62)]).join('')}`;
};

export const startServer = (env: Record<string, string> = {}) => startLocalServer(env);

export { disposeServer } from '../../tools/harness/local-server.ts';

/**
 * Every response, success or error: a request id, and a JSON body with a JSON Content-Type, or,
 * when the OpenAPI document declares the answer without content (a 204), no body.
 */
const expectCommonHeaders = (headers: Headers, text: string, withoutContent: boolean) => {
  expect(headers.get('x-amzn-requestid')).toMatch(/\S/);
  // No body; the Content-Type may still be there: API Gateway's REST proxy integration answers
  // `application/json` when the function names none, as the local gateway does (localstack's
  // emulation of it: https://github.com/localstack/localstack/pull/6170).
  if (withoutContent) {
    expect(text).toBe('');
    return;
  }
  expect(headers.get('content-type')).toMatch(/^application\/json\s*(;.*)?$/i);
  expect(() => JSON.parse(text)).not.toThrow();
};

/**
 * A request to the server: `target` is below the base URL (`/pets`) or absolute.
 * Checks the rules of every response before returning it.
 */
export const call = async <T = unknown>(
  server: LocalServer,
  target: string | URL,
  options: RequestOptions = {},
): Promise<Reply<T>> => {
  const url = typeof target === 'string' && !/^https?:/.test(target) ? `${server.baseUrl}${target}` : String(target);
  const headers: Record<string, string> = { ...options.headers };
  const authorization = options.authorization === undefined ? bearer(server.key) : options.authorization;
  if (authorization !== null) headers.Authorization = authorization;
  const method = options.method ?? 'GET';
  const response = await fetch(url, { method, headers, body: options.body ?? null });
  const text = await response.text();
  const withoutContent = declaredWithoutContent(method, new URL(url).pathname, response.status);
  expectCommonHeaders(response.headers, text, withoutContent);
  return {
    status: response.status,
    headers: response.headers,
    body: (withoutContent ? undefined : JSON.parse(text)) as T,
    url,
  };
};

/** An operation's sample request (tools/harness/sample-requests.ts), as `call` sends any. */
export const callSample = <T = unknown>(
  server: LocalServer,
  operationId: OperationId,
  sample: SampleRequest,
  options: RequestOptions = {},
) => {
  const { method, path, headers, body } = sampleHttpRequest(operationId, sample);
  return call<T>(server, path, {
    method,
    ...options,
    headers: { ...headers, ...options.headers },
    ...(body !== undefined && { body }),
  });
};

/** POST /pets with a JSON body (any value, sent as given when it is a string). */
export const postPet = <T = unknown>(server: LocalServer, body: unknown, options: RequestOptions = {}) =>
  call<T>(server, '/pets', {
    method: 'POST',
    ...options,
    headers: { 'Content-Type': 'application/json', ...options.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Creates an animal and returns it, failing the test unless the answer is 201. */
export const createPet = async (
  server: LocalServer,
  newPet: { name: string; categoryId: number; status?: Status },
): Promise<Animal> => {
  const reply = await postPet<Animal>(server, newPet);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  expectAnimal(reply.body);
  return reply.body;
};

/** Exactly the four Animal fields, each of its type. */
export function expectAnimal(value: unknown): asserts value is Animal {
  expect(value).toBeTypeOf('object');
  const animal = value as Record<string, unknown>;
  expect(Object.keys(animal).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  expect(Number.isSafeInteger(animal.id) && (animal.id as number) >= 1).toBe(true);
  expect(animal.name).toBeTypeOf('string');
  expect(Number.isSafeInteger(animal.categoryId) && (animal.categoryId as number) >= 1).toBe(true);
  expect(STATUSES).toContain(animal.status);
}

export interface ErrorBody {
  code: string;
  message: string;
  status: number;
  requestId: string;
  details?: Array<{ field: string; message: string }>;
}

/** What no error body may ever show: a stack trace, an AWS error name, a table name, a key. */
const LEAKS = [
  /\bat .+:\d+:\d+/, // a stack frame
  /\.ts:\d+/,
  /node:internal/,
  /\b\w+(Exception|Error)\b/, // ValidationException, TypeError, ConditionalCheckFailedException…
  /dynamo/i,
  /arn:aws/,
  /\btable\b/i,
  /"(pets|keys|counters|byStatusShard|statusShard)"/, // the local table and index names, as an AWS message quotes them
  /pet_[0-9A-Za-z]{32,}/, // any API key
];

/**
 * The contract's Error body: exactly code, message, status (= HTTP status) and
 * requestId (= x-amzn-RequestId), plus `details` on validation errors (every 400)
 * only, and nothing that leaks internals or `secrets` (keys the caller sent).
 */
export const expectError = (reply: Reply, status: number, code: string, secrets: string[] = []): ErrorBody => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  const body = reply.body as ErrorBody;
  const validation = status === 400;
  expect(Object.keys(body).sort()).toEqual(
    validation ? ['code', 'details', 'message', 'requestId', 'status'] : ['code', 'message', 'requestId', 'status'],
  );
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(body.message).toMatch(/\S/);
  expect(body.requestId).toBe(reply.headers.get('x-amzn-requestid'));
  if (validation) {
    expect(body.details!.length).toBeGreaterThan(0);
    for (const detail of body.details!) {
      expect(Object.keys(detail).sort()).toEqual(['field', 'message']);
      expect(detail.field).toMatch(/\S/);
      expect(detail.message).toMatch(/\S/);
    }
  }
  const text = JSON.stringify(body);
  for (const leak of LEAKS) expect(text).not.toMatch(leak);
  for (const secret of secrets) expect(text).not.toContain(secret);
  if (status === 401) expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer(\s|$)/);
  return body;
};

/** A 400 whose details name `field`. */
export const expectBadRequest = (reply: Reply, field: string): ErrorBody => {
  const body = expectError(reply, 400, 'BAD_REQUEST');
  expect(body.details!.map((d) => d.field)).toContain(field);
  return body;
};

/** The targets of a response's Link header by relation, resolved against the request URL (the client's parser). */
export const links = (reply: Reply): Map<string, URL> => parseLinks(reply.headers.get('link'), reply.url);

/** Follows `rel="next"` from `first` to the last page; returns every page's reply. */
export const allPages = async (server: LocalServer, first: string): Promise<Reply<Animal[]>[]> => {
  const pages: Reply<Animal[]>[] = [];
  let target: string | URL | undefined = first;
  while (target !== undefined) {
    const page: Reply<Animal[]> = await call<Animal[]>(server, target);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    pages.push(page);
    target = links(page).get('next');
    expect(pages.length).toBeLessThan(500); // a link cycle must fail, not hang
  }
  return pages;
};

/** Runs `npm run keys -- …args` against `dataDir`, as a person would. */
export const keyTool = (
  dataDir: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'keys', '--', ...args],
      { env: { ...process.env, PETSTORE_DATA_DIR: dataDir } },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/** Issues a key with the key tool; returns it and its key id. */
export const issueKey = async (dataDir: string, label: string): Promise<{ key: string; keyId: string }> => {
  const result = await keyTool(dataDir, 'create', '--label', label);
  expect(result.code, result.stderr).toBe(0);
  const key = /\b(pet_[0-9A-Za-z]+)/.exec(result.stdout)?.[1];
  const keyId = /\b(key_[0-9A-Za-z]+)/.exec(result.stdout)?.[1];
  expect(key, result.stdout).toBeDefined();
  expect(keyId, result.stdout).toBeDefined();
  return { key: key!, keyId: keyId! };
};

/** Runs `work` on every item, `width` at a time (two shared cores: no stampede). */
export const inBatches = async <T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width) {
    results.push(...(await Promise.all(items.slice(start, start + width).map((item, i) => work(item, start + i)))));
  }
  return results;
};
