// `npm run deploy` in a region where listPets cannot be created (no layer of AWS's Parameters and
// Secrets Lambda Extension there, by CDK's table: tools/deploy/region.ts) refuses before it asks
// AWS anything, naming the region and what is missing; in a region with the layer it goes on to
// ask CloudFormation for the stack. A stand-in CloudFormation on loopback counts the questions.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Listening, listenOnLoopback } from '../../tools/harness/loopback.ts';

const asked: string[] = [];
let cloudFormation: Listening;
beforeAll(async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      asked.push(body);
      const stackName = new URLSearchParams(body).get('StackName');
      res.writeHead(400, { 'Content-Type': 'text/xml' });
      res.end(
        `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${stackName} does not exist</Message></Error><RequestId>0</RequestId></ErrorResponse>`,
      );
    });
  });
  cloudFormation = await listenOnLoopback(server);
});
afterAll(() => cloudFormation.close());

const deployIn = (region: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['tools/deploy/cli.ts', '--dry-run', '--stage', 'staging'],
      {
        env: {
          PATH: process.env.PATH,
          AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
          AWS_SECRET_ACCESS_KEY: 'example',
          AWS_REGION: region,
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

describe('npm run deploy and the region', () => {
  test('a region without the extension layer: refused at once, the region and the layer named, nothing asked', async () => {
    asked.length = 0;
    const result = await deployIn('ap-south-2');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ap-south-2');
    expect(result.stderr).toContain("AWS's Parameters and Secrets Lambda Extension");
    expect(result.stdout).not.toContain('would run');
    expect(asked).toEqual([]);
  });

  test('a region with it: the deploy goes on to ask for the stack', async () => {
    asked.length = 0;
    const result = await deployIn('eu-central-1');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('would run');
    expect(asked.length).toBeGreaterThan(0);
  });
});
