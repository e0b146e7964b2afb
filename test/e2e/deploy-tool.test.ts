// `npm run deploy -- --stage <stage> --dry-run` against a stand-in CloudFormation on loopback
// (DescribeStacks answered as AWS answers it: the Query protocol's XML, and the
// ValidationError "Stack with id … does not exist" for a stack it has never had). What it
// decides is what AWS holds it to: a stack whose first create failed is ROLLBACK_COMPLETE and
// "can not be updated", only deleted, which the CDK CLI now does by itself before creating again
// (aws/aws-cdk#901); termination protection refuses that delete ("Protect CloudFormation stacks
// from being deleted", https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-protect-stacks.html),
// so the first deploy runs with protections off and turns them on after it succeeded. The
// statuses it updates from are CloudFormation's "last known stable" ones (CREATE_COMPLETE,
// UPDATE_COMPLETE, UPDATE_ROLLBACK_COMPLETE, IMPORT_*: the RollbackStack API reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_RollbackStack.html).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Listening, listenOnLoopback } from '../../tools/harness/loopback.ts';

/** What the stand-in says of the stack: a StackStatus, 'missing', or an error code. */
let answer: string = 'missing';
const asked: string[] = [];
/** The region each request was signed for: SigV4's credential scope names it (…/<date>/<region>/cloudformation/aws4_request). */
const signedFor: string[] = [];
let cloudFormation: Listening;
beforeAll(async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      asked.push(body);
      signedFor.push(
        /Credential=[^/]+\/\d{8}\/([^/]+)\/cloudformation\//.exec(req.headers.authorization ?? '')?.[1] ?? '',
      );
      const stackName = new URLSearchParams(body).get('StackName');
      const error = (code: string, message: string, status = 400) => {
        res.writeHead(status, { 'Content-Type': 'text/xml' });
        res.end(
          `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>0</RequestId></ErrorResponse>`,
        );
      };
      if (answer === 'missing') return error('ValidationError', `Stack with id ${stackName} does not exist`);
      if (answer === 'AccessDenied')
        return error('AccessDenied', 'User is not authorized to perform: cloudformation:DescribeStacks', 403);
      res.writeHead(200, { 'Content-Type': 'text/xml' });
      res.end(
        `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${stackName}</StackName><StackId>arn:aws:cloudformation:eu-west-1:123456789012:stack/${stackName}/1</StackId><StackStatus>${answer}</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>0</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  cloudFormation = await listenOnLoopback(server);
});
afterAll(() => cloudFormation.close());

const deployWith = (env: Record<string, string>, ...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['tools/deploy/cli.ts', '--dry-run', ...args],
      {
        env: {
          ...env,
          PATH: process.env.PATH,
          AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
          AWS_SECRET_ACCESS_KEY: 'example',
          AWS_REGION: 'eu-west-1',
          AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
          AWS_CONFIG_FILE: '/nonexistent/config',
          AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
        },
        timeout: 20_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
const deploy = (...args: string[]) => deployWith({}, ...args);

const commands = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('deploy: would run: '))
    .map((line) => line.replace('deploy: would run: ', ''));

const PIPELINE = ['--assembly', 'cdk.out', '--first-deploy-assembly', 'cdk.out.first'];

describe('npm run deploy --dry-run', () => {
  test('a stage that does not exist: first deploy (protections off), then the stage as set (protections on)', async () => {
    answer = 'missing';
    const result = await deploy('--stage', 'production', '--outputs-file', 'outputs.json');
    expect(result.code, result.stderr).toBe(0);
    expect(new URLSearchParams(asked.at(-1)).get('StackName')).toBe('PetStore-production');
    expect(commands(result.stdout)).toEqual([
      'cdk deploy PetStore-production --exclusively --require-approval never -c firstDeploy=true',
      'cdk deploy PetStore-production --exclusively --require-approval never --outputs-file outputs.json',
    ]);
  });

  test("the pipeline's first deploy: the first-deploy assembly, then the assembly staging passed", async () => {
    answer = 'missing';
    const result = await deploy('--stage', 'staging', ...PIPELINE);
    expect(commands(result.stdout)).toEqual([
      'cdk deploy PetStore-staging --exclusively --require-approval never --app cdk.out.first',
      'cdk deploy PetStore-staging --exclusively --require-approval never --app cdk.out',
    ]);
  });

  test('a failed create (ROLLBACK_COMPLETE) or an unexecuted change set: first deploy again', async () => {
    for (const status of ['ROLLBACK_COMPLETE', 'REVIEW_IN_PROGRESS']) {
      answer = status;
      const result = await deploy('--stage', 'staging', ...PIPELINE);
      expect(result.stdout).toContain(status);
      expect(commands(result.stdout)[0]).toContain('--app cdk.out.first');
    }
  });

  test('a stage that exists: one deploy with its own settings, never the first-deploy ones', async () => {
    for (const status of ['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_ROLLBACK_COMPLETE']) {
      answer = status;
      const result = await deploy('--stage', 'production', ...PIPELINE);
      expect(commands(result.stdout)).toEqual([
        'cdk deploy PetStore-production --exclusively --require-approval never --app cdk.out',
      ]);
    }
  });

  test('refuses while another operation runs, or a stack that needs a hand', async () => {
    for (const status of ['UPDATE_IN_PROGRESS', 'UPDATE_ROLLBACK_FAILED', 'DELETE_FAILED']) {
      answer = status;
      const result = await deploy('--stage', 'staging', ...PIPELINE);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(status);
      expect(commands(result.stdout)).toEqual([]);
    }
  });

  test('an assembly without its first-deploy twin cannot create a stage', async () => {
    answer = 'missing';
    const result = await deploy('--stage', 'staging', '--assembly', 'cdk.out');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--first-deploy-assembly/);
  });

  test('AccessDenied is not "no stack": it stops before any deploy', async () => {
    answer = 'AccessDenied';
    const result = await deploy('--stage', 'production', ...PIPELINE);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/AccessDenied/);
    expect(commands(result.stdout)).toEqual([]);
  });

  // A stage pinned to its region (PETSTORE_AWS_REGION_<STAGE>, docs/deploying.md) is read where it
  // is: asked in the caller's default region, CloudFormation says "does not exist" of a live stack,
  // and the first deploy (protections off) would run over it. The pipeline's deploy jobs synthesize
  // nothing: the assembly names the region it was synthesized for (its manifest's environment).
  describe("a stage pinned to a region other than the caller's", () => {
    const pinned = { PETSTORE_AWS_ACCOUNT_PRODUCTION: '123456789012', PETSTORE_AWS_REGION_PRODUCTION: 'us-east-2' };
    let assembly: string;
    beforeAll(() => {
      assembly = mkdtempSync(join(tmpdir(), 'petstore-assembly-'));
      writeFileSync(
        join(assembly, 'manifest.json'),
        JSON.stringify({
          version: '48.0.0',
          artifacts: {
            'PetStore-production': { type: 'aws:cloudformation:stack', environment: 'aws://123456789012/us-east-2' },
          },
        }),
      );
    });
    afterAll(() => rmSync(assembly, { recursive: true, force: true }));

    test('pinned in the environment: its status is read in the pinned region', async () => {
      answer = 'UPDATE_COMPLETE';
      const result = await deployWith(pinned, '--stage', 'production');
      expect(result.code, result.stderr).toBe(0);
      expect(signedFor.at(-1)).toBe('us-east-2');
    });

    test("pinned in the pipeline's assembly only: its status is read in the assembly's region", async () => {
      answer = 'UPDATE_COMPLETE';
      const result = await deploy('--stage', 'production', '--assembly', assembly, '--first-deploy-assembly', assembly);
      expect(result.code, result.stderr).toBe(0);
      expect(signedFor.at(-1)).toBe('us-east-2');
    });

    test('an assembly for another region than the environment pins is refused', async () => {
      const result = await deployWith(
        { ...pinned, PETSTORE_AWS_REGION_PRODUCTION: 'eu-central-1' },
        '--stage',
        'production',
        '--assembly',
        assembly,
        '--first-deploy-assembly',
        assembly,
      );
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/us-east-2/);
      expect(commands(result.stdout)).toEqual([]);
    });
  });
});
