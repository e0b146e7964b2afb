// `npm run deploy` as a newcomer meets it: --help and a typo give the usage text, never a stack
// trace; without AWS set up, it says what is missing and how to provide it, --dry-run included
// (it asks CloudFormation for the stack's status before it plans anything).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const home = mkdtempSync(join(tmpdir(), 'deploy-usage-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The deploy command in a shell with no AWS set-up at all (no profile files, no variables). */
const deploy = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      ['tools/deploy/cli.ts', ...args],
      {
        env: {
          PATH: process.env.PATH!,
          HOME: home,
          // Never ask the EC2 instance metadata service: no address outside loopback.
          AWS_EC2_METADATA_DISABLED: 'true',
          ...env,
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

/** A line of a JavaScript stack trace (`    at fn (file:…)`). */
const STACK_LINE = /^\s+at\s/m;

describe('npm run deploy: usage', () => {
  test('--help prints the usage text and exits 0', async () => {
    const result = await deploy(['--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run deploy -- --stage staging\|production/);
    expect(result.stdout).toMatch(/--dry-run/);
    expect(result.stdout).toMatch(/needs AWS access/);
    expect(result.stderr).toBe('');
  });

  test.each([['--dryrun'], ['staging']])(
    '%s (a typo, a stray word) says what is wrong, then the usage text',
    async (word) => {
      const result = await deploy(['--stage', 'staging', word]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^deploy: .*'${word}'`));
      expect(result.stderr).toMatch(/^Usage: npm run deploy/m);
      expect(result.stderr).not.toMatch(STACK_LINE);
    },
  );

  test('no --stage: says so, with the usage text', async () => {
    const result = await deploy(['--dry-run']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^deploy: --stage must be one of staging, production/);
    expect(result.stderr).toMatch(/^Usage:/m);
  });
});

describe('npm run deploy without AWS', () => {
  test('no region: --dry-run says it needs AWS access and how to set the region, in one line', async () => {
    const result = await deploy(['--stage', 'staging', '--dry-run']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--dry-run too/);
    expect(result.stderr).toMatch(/Set AWS_REGION/);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  test('a region but no credentials: says which variables or profile to set', async () => {
    const result = await deploy(['--stage', 'staging', '--dry-run'], { AWS_REGION: 'eu-west-1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /no AWS credentials found\. Set AWS_PROFILE .*AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
    );
    expect(result.stderr).not.toMatch(/CredentialsProviderError/);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });
});
