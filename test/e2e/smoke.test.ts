// The smoke suite (tools/smoke) against the local stage: it passes on a healthy stage, in
// write mode and read-only, and fails on a stage that breaks any one rule a client relies
// on, naming that rule and the x-amzn-RequestId of the response that broke it.
import { execFile } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';
import { type CheckResult, runSmokeChecks } from '../../tools/smoke/checks.ts';
import type { Rule } from '../../tools/smoke/probe.ts';
import { type Fault, type FaultyStage, startFaultyStage } from '../support/faulty-stage.ts';
import { keyTool } from './support.ts';

let server: LocalServer;
let stage: FaultyStage;
beforeAll(async () => {
  server = await startLocalServer();
  stage = await startFaultyStage(server.baseUrl);
});
afterAll(async () => {
  await stage?.close();
  await disposeServer(server);
});

const smoke = (readOnly: boolean) => runSmokeChecks({ baseUrl: stage.baseUrl, key: server.key, readOnly });
const brokenRules = (results: CheckResult[]) => results.flatMap((r) => (r.violation ? [r.violation.rule] : []));
/** Skipped for a reason other than the one a write key always has: a read key's 403 needs a read key. */
const skipped = (results: CheckResult[]) =>
  results.filter((r) => r.outcome === 'skipped' && !r.note?.startsWith('needs a read key'));

const isListing = (url: URL) => url.pathname.endsWith('/v1/pets');
const isGetPet = (url: URL) => /\/v1\/pets\/\d+$/.test(url.pathname);
const errorBody = (body: string, change: (error: Record<string, unknown>) => Record<string, unknown>) =>
  JSON.stringify(change(JSON.parse(body) as Record<string, unknown>));

/** One fault per rule a client relies on, and the rule the suite must then report broken. */
const FAULTS: [string, Rule, Fault][] = [
  ['a response without a request id', 'requestId', { response: (a) => a.headers.delete('x-amzn-requestid') }],
  [
    'a 500 on the listing',
    'listing',
    {
      response: (a, e) => {
        if (e.method !== 'GET' || !isListing(e.url) || e.url.search.includes('limit=0')) return;
        const requestId = a.headers.get('x-amzn-requestid');
        a.status = 500;
        a.body = JSON.stringify({ code: 'INTERNAL_ERROR', message: 'Internal error', status: 500, requestId });
      },
    },
  ],
  ['a lost WWW-Authenticate', 'missingKey', { response: (a) => a.headers.delete('www-authenticate') }],
  ['a lost Sunset on getPet', 'deprecation', { response: (a, e) => isGetPet(e.url) && a.headers.delete('sunset') }],
  [
    'an unknown key let in',
    'unknownKey',
    {
      request: (e) => {
        if (!e.headers.get('authorization')?.includes(server.key))
          e.headers.set('authorization', `Bearer ${server.key}`);
      },
    },
  ],
  [
    'a wrong error shape',
    'errorBody',
    {
      response: (a) => {
        if (a.status >= 400) a.body = errorBody(a.body, ({ code, message }) => ({ error: { code, message } }));
      },
    },
  ],
  [
    'an error whose requestId is not the header',
    'errorBody',
    {
      response: (a) => {
        if (a.status >= 400) a.body = errorBody(a.body, (error) => ({ ...error, requestId: 'not-this-one' }));
      },
    },
  ],
  [
    'a dropped status filter',
    'statusFilter',
    {
      request: (e) => {
        if (e.url.searchParams.get('status') !== 'AVAILABLE') e.url.searchParams.delete('status');
      },
    },
  ],
  ['a lost Link on the listing', 'paging', { response: (a, e) => isListing(e.url) && a.headers.delete('link') }],
  [
    'a lost Deprecation on the 404 only',
    'deprecation',
    {
      response: (a, e) => isGetPet(e.url) && a.status === 404 && a.headers.delete('deprecation'),
    },
  ],
  ['a replay that creates again', 'replay', { request: (e) => e.headers.delete('idempotency-key') }],
  [
    "a 400 whose details name another field than the invalid sample's",
    'invalidInput',
    {
      response: (a) => {
        if (a.status === 400) a.body = a.body.replaceAll('"field":"', '"field":"not-');
      },
    },
  ],
  [
    'a not-found that the same request then finds',
    'notFound',
    {
      response: (a, e) => {
        if (a.status !== 404 || !isGetPet(e.url)) return;
        if (!absentSeen.has(e.url.pathname)) return void absentSeen.add(e.url.pathname);
        a.status = 200;
        a.body = JSON.stringify({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
      },
    },
  ],
  [
    'a body that is not JSON taken as JSON',
    'unsupportedMediaType',
    {
      request: (e) =>
        void (e.headers.get('content-type') === 'text/plain' && e.headers.set('content-type', 'application/json')),
    },
  ],
];
/** The absent ids the not-found fault above has answered 404 once. */
const absentSeen = new Set<string>();

describe('the smoke suite', () => {
  it('passes against a healthy stage, in write mode (which leaves animals for paging), then read-only', async () => {
    stage.fault = undefined;
    const write = await smoke(false);
    expect(brokenRules(write)).toEqual([]);
    expect(skipped(write)).toEqual([]);
    const read = await smoke(true);
    expect(brokenRules(read)).toEqual([]);
    expect(skipped(read)).toEqual([]);
  });

  it("read-only with a read key checks each write operation's 403, and every other rule", async () => {
    stage.fault = undefined;
    const created = await keyTool(server.dataDir, 'create', '--label', 'smoke read-only', '--scope', 'read');
    const readKey = /\b(pet_[0-9A-Za-z]+)/.exec(created.stdout)![1]!;
    const results = await runSmokeChecks({ baseUrl: stage.baseUrl, key: readKey, readOnly: true });
    expect(brokenRules(results)).toEqual([]);
    expect(results.find((r) => r.name === 'createPet: a read key is 403')?.outcome).toBe('passed');
  });

  it('creates nothing in read-only mode', async () => {
    const created: string[] = [];
    stage.fault = { response: (a, e) => void (a.status === 201 && created.push(`${e.method} ${e.url.pathname}`)) };
    expect(brokenRules(await smoke(true))).toEqual([]);
    expect(created).toEqual([]);
  });

  it.each(FAULTS)('fails on %s, naming the rule and the request id', async (_, rule, fault) => {
    stage.fault = fault;
    stage.requestIds.clear();
    const results = await smoke(false);
    const violation = results.find((r) => r.violation?.rule === rule)?.violation;
    expect(violation, `broken: ${brokenRules(results).join(', ') || 'nothing'}`).toBeDefined();
    if (rule === 'requestId') expect(violation!.requestId).toBeUndefined();
    else expect(stage.requestIds).toContain(violation!.requestId);
    stage.fault = undefined;
  });
});

describe('npm run smoke', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, ['tools/smoke/cli.ts', ...args], { env: { ...process.env, ...env } }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout + error.stderr,
      }),
    );

  it('exits 0 on a healthy stage and 1 with a report of the broken rule and its request id', async () => {
    stage.fault = undefined;
    expect(await run(['--base-url', stage.baseUrl, '--key', server.key, '--read-only'])).toMatchObject({ code: 0 });
    stage.fault = FAULTS.find(([name]) => name === 'a lost WWW-Authenticate')![2];
    const { code, stdout } = await run(['--base-url', stage.baseUrl, '--key', server.key, '--read-only']);
    stage.fault = undefined;
    expect(code).toBe(1);
    expect(stdout).toContain('FAIL 401 without a key');
    expect(stdout).toMatch(
      /- a request without a key is 401 UNAUTHORIZED with WWW-Authenticate: Bearer\n {4}GET \/pets: WWW-Authenticate is ""\n {4}x-amzn-RequestId: \S+/,
    );
  });

  it('refuses write mode against production', async () => {
    const { code, stdout } = await run([
      '--base-url',
      'https://abc.execute-api.eu-west-1.amazonaws.com/production/v1',
      '--key',
      'pet_x',
    ]);
    expect(code).toBe(2);
    expect(stdout).toContain('production is checked read-only only');
    expect(await run(['--stage', 'production'])).toMatchObject({ code: 2 });
  });
  it('takes the key from PETSTORE_SMOKE_KEY with --base-url too, so that it stays off the command line', async () => {
    stage.fault = undefined;
    const result = await run(['--base-url', server.baseUrl, '--read-only'], { PETSTORE_SMOKE_KEY: server.key });
    expect(result.code, result.stdout).toBe(0);
  });

  it('says once that a base URL lacks /v1, rather than a 404 per check', async () => {
    const origin = new URL(server.baseUrl).origin;
    const { code, stdout } = await run(['--base-url', origin, '--read-only'], { PETSTORE_SMOKE_KEY: server.key });
    expect(code).toBe(2);
    expect(stdout).toContain(`smoke: ${origin} does not end in /v1`);
    expect(stdout).not.toMatch(/404|FAIL/);
  });

  it('says in one line that nothing answers at the address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve)); // a port nothing listens on
    const { code, stdout } = await run(['--base-url', `http://127.0.0.1:${port}/v1`, '--read-only'], {
      PETSTORE_SMOKE_KEY: server.key,
    });
    expect(code).toBe(2);
    expect(stdout.trim()).toBe(
      `smoke: nothing answers at http://127.0.0.1:${port} (ECONNREFUSED): is the server running there?`,
    );
  });

  it('hints at --read-only when a read key runs in write mode', async () => {
    const created = await keyTool(server.dataDir, 'create', '--label', 'smoke read', '--scope', 'read');
    const readKey = /\b(pet_[0-9A-Za-z]+)/.exec(created.stdout)![1]!;
    const write = await run(['--base-url', server.baseUrl], { PETSTORE_SMOKE_KEY: readKey });
    expect(write.code).toBe(1);
    expect(write.stdout).toContain('is the key a read key? Check a read key with --read-only.');
    expect(await run(['--base-url', server.baseUrl, '--read-only'], { PETSTORE_SMOKE_KEY: readKey })).toMatchObject({
      code: 0,
    });
  });
});
