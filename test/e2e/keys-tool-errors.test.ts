// The key tool against a stage it cannot reach says what is wrong and what to do, in a line,
// and exits non-zero: no stack trace. The "missing stack" answer comes
// from a stand-in CloudFormation endpoint on loopback (the AWS error, as AWS sends it).
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { disposeServer } from '../../tools/harness/local-server.ts';
import { startServer } from './support.ts';

let cloudFormation: Server;
let endpoint: string;
beforeAll(async () => {
  cloudFormation = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'Content-Type': 'text/xml' });
      res.end(
        '<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type>' +
          '<Code>ValidationError</Code><Message>Stack with id PetStore-staging does not exist</Message></Error>' +
          '<RequestId>00000000-0000-0000-0000-000000000000</RequestId></ErrorResponse>',
      );
    });
  });
  await new Promise<void>((done) => cloudFormation.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(cloudFormation.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => cloudFormation.close(() => done())));

/** The environment of a machine with no AWS configuration at all, plus `env`. */
const awsless = (env: Record<string, string>) => {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  return {
    ...clean,
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_REGION: 'eu-west-1',
    ...env,
  };
};

const keys = (env: Record<string, string>, ...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['tools/keys/cli.ts', ...args],
      { env: awsless(env), timeout: 20_000 },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

const expectOneLineFailure = (result: { code: number; stderr: string }, says: RegExp) => {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(says);
  expect(result.stderr, 'a stack trace').not.toMatch(/^\s+at /m);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
};

test('no AWS credentials: says so and how to provide them', async () => {
  const result = await keys({}, 'list', '--stage', 'staging');
  expectOneLineFailure(result, /no AWS credentials.*AWS_PROFILE/);
});

test('AWS_PROFILE naming a profile that does not exist: names it, not "no credentials"', async () => {
  const result = await keys({ AWS_PROFILE: 'no-such-profile' }, 'list', '--stage', 'staging');
  expectOneLineFailure(result, /AWS_PROFILE names profile "no-such-profile", which does not exist in/);
  expect(result.stderr).not.toMatch(/no AWS credentials found/);
});

test('a stage whose stack does not exist: names the stack and what to do', async () => {
  const result = await keys(
    { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'example', AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint },
    'list',
    '--stage',
    'staging',
  );
  expectOneLineFailure(result, /stack PetStore-staging does not exist in eu-west-1.*deploy/);
});

// The local stage's data goes through the running server's embedded DynamoDB: a server that does
// not answer (suspended with Ctrl+Z, or overloaded) is named, in a line, not a stack trace.
test('a local server that does not answer: says so in a line, and exits non-zero', async () => {
  const server = await startServer();
  try {
    server.process.kill('SIGSTOP');
    const result = await keys({ PETSTORE_DATA_DIR: server.dataDir }, 'list');
    expectOneLineFailure(result, /the local server .*did not answer/);
  } finally {
    server.process.kill('SIGCONT');
    await disposeServer(server);
  }
}, 60_000);
