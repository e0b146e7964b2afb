// The delivery pipeline as .github/workflows says it: pull requests get the checks and a
// read-only diff; a push to main goes staging → smoke (staging.yml, through deliver.yml), and a
// run started by hand (release.yml, the approval: its file alone can reach production's role,
// infra/ci) goes through the same and on → production → smoke, each step needing the one
// before, one deploy per stage at a time, the same assembly everywhere, an AWS token only where
// a deploy, a smoke run or the diff needs one, and no GitHub environment (none on a free plan's
// private repository).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CI_ROLES, DEPLOY_WORKFLOWS } from '../../infra/ci/github.ts';
import { DEPLOYED_STAGES, pipelineSmokeKeySecretName } from '../../infra/stages.ts';
import { environmentOf, type Job, needsOf, roleOf, WORKFLOW_FILES, workflow } from '../support/workflows.ts';

const deliver = workflow('deliver.yml');
const release = workflow('release.yml');
const staging = workflow('staging.yml');
const ci = workflow('ci.yml');

/** Every job `name` waits for, directly or not. */
const upstream = (jobs: Record<string, Job>, name: string): Set<string> => {
  const seen = new Set<string>();
  const visit = (job: string) => {
    for (const need of needsOf(jobs[job]!)) {
      if (seen.has(need)) continue;
      seen.add(need);
      visit(need);
    }
  };
  visit(name);
  return seen;
};
/** A GitHub Actions expression, as the workflow file writes it. */
const expr = (inside: string) => ['$', '{{ ', inside, ' }}'].join('');
const runs = (job: Job) => (job.steps ?? []).map((step) => step.run ?? '').join('\n');
const callsStaging = {
  name: 'Staging',
  uses: './.github/workflows/staging.yml',
  permissions: { contents: 'read', 'id-token': 'write' },
};
/** The order of the jobs of a file, each directly after the one before: a failed job stops everything after it. */
const expectChain = (jobs: Record<string, Job>, order: string[]) => {
  expect(Object.keys(jobs).sort()).toEqual([...order].sort());
  for (const [i, job] of order.entries()) {
    if (i > 0) expect(needsOf(jobs[job]!), job).toEqual([order[i - 1]]);
    expect([...upstream(jobs, job)].sort(), job).toEqual(order.slice(0, i).sort());
  }
};

describe('deliver.yml (a push to main), release.yml (by hand) and staging.yml (what both run first)', () => {
  it('deliver.yml: a push to main runs staging, and nothing else', () => {
    expect(deliver.on).toEqual({ push: { branches: ['main'] } });
    expect(deliver.jobs).toEqual({ staging: callsStaging });
  });

  it('release.yml: only a run started by hand; staging, then production, each after the one before', () => {
    expect(release.on).toEqual({ workflow_dispatch: null });
    expectChain(release.jobs, ['staging', 'deploy-production', 'smoke-production']);
    expect(release.jobs.staging).toEqual(callsStaging);
    // A run started on another branch stops before production (whose role would refuse it anyway).
    expect(release.jobs['deploy-production']!.if).toBe("github.ref == 'refs/heads/main'");
    expect(release.jobs['smoke-production']!.if).toBeUndefined();
  });

  it('staging.yml: only called; checks → synth → deploy → smoke, each after the one before', () => {
    expect(staging.on).toEqual({ workflow_call: null });
    expectChain(staging.jobs, ['checks', 'synth', 'deploy-staging', 'smoke-staging']);
    for (const [name, job] of Object.entries(staging.jobs)) expect(job.if, name).toBeUndefined();
  });

  it("each stage's role is assumed only from the workflow file its role trusts", () => {
    const files = { 'staging.yml': staging, 'release.yml': release } as const;
    for (const stage of DEPLOYED_STAGES) {
      const { jobs } = files[DEPLOY_WORKFLOWS[stage] as keyof typeof files];
      for (const job of [`deploy-${stage}`, `smoke-${stage}`])
        expect(roleOf(jobs[job]!), job).toBe(CI_ROLES.deploy(stage));
    }
  });

  it('names no GitHub environment: the gate needs none, on any plan', () => {
    for (const file of WORKFLOW_FILES)
      for (const [name, job] of Object.entries(workflow(file).jobs))
        expect(environmentOf(job), `${file} ${name}`).toBeUndefined();
  });

  it('deploys the one assembly synth made (and its first-deploy twin) with npm run deploy, as a person does', () => {
    expect(runs(staging.jobs.synth!)).toContain('npx cdk synth --quiet\n');
    expect(runs(staging.jobs.synth!)).toContain('npx cdk synth --quiet -c firstDeploy=true --output cdk.out.first');
    const upload = staging.jobs.synth!.steps!.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.with).toMatchObject({ name: expr('env.ASSEMBLY'), path: 'cdk.out\ncdk.out.first\n' });
    // "Re-run all jobs" runs synth again in the same run, whose artifact of that name v4 refuses
    // (409 Conflict) unless told to replace it (upload-artifact's docs/MIGRATION.md, "Overwriting").
    expect(upload.with?.overwrite).toBe(true);
    // The same name in the release's production job: the artifact of the same run.
    for (const file of [staging, release]) expect(file.env?.ASSEMBLY).toBe(`cloud-assembly-${expr('github.sha')}`);
    for (const [stage, job] of [
      ['staging', staging.jobs['deploy-staging']!],
      ['production', release.jobs['deploy-production']!],
    ] as const) {
      const download = job.steps!.find((s) => s.uses?.startsWith('actions/download-artifact@'))!;
      expect(download.with).toEqual({ name: expr('env.ASSEMBLY'), path: '.' });
      expect(runs(job)).toContain(
        `npm run deploy -- --stage ${stage} --assembly cdk.out --first-deploy-assembly cdk.out.first --outputs-file outputs.json`,
      );
      expect(runs(job)).not.toMatch(/cdk synth|cdk deploy/);
    }
  });

  it('deploys one stage at a time, never cancelling a deploy in flight', () => {
    expect(staging.jobs['deploy-staging']!.concurrency).toEqual({
      group: 'deploy-staging',
      'cancel-in-progress': false,
    });
    expect(release.jobs['deploy-production']!.concurrency).toEqual({
      group: 'deploy-production',
      'cancel-in-progress': false,
    });
  });

  // The contract: "Against production it is always read-only"; staging is checked fully, writes
  // (createPet, idempotency) included, with the write key its stack mints there alone.
  it.each([
    ['staging', 'PetStore-staging/smoke-write-key', 'npm run smoke', ''],
    ['production', 'PetStore-production/smoke-canary-key', 'npm run smoke -- --read-only', ' --read-only'],
  ] as const)(
    'smokes %s with the key its stack mints (%s), masked, against the address its deploy printed',
    (stage, secret, stepName, flag) => {
      const job = stage === 'staging' ? staging.jobs['smoke-staging']! : release.jobs['smoke-production']!;
      const script = job.steps!.find((step) => step.name === stepName)!.run!;
      expect(script.split('\n').filter(Boolean)).toEqual([
        `PETSTORE_SMOKE_KEY=$(aws secretsmanager get-secret-value --secret-id ${secret} --query SecretString --output text)`,
        'echo "::add-mask::$PETSTORE_SMOKE_KEY"',
        'export PETSTORE_SMOKE_KEY',
        `npm run smoke -- --base-url "${expr(`needs.deploy-${stage}.outputs.base-url`)}"${flag}`,
      ]);
      // The secret is the one the stage's deploy role may read (infra/ci/ci-stack.ts).
      expect(secret).toBe(pipelineSmokeKeySecretName(stage));
      expect(JSON.stringify(job)).not.toContain('secrets.');
    },
  );

  it('gives an AWS token only to the deploy and smoke jobs, each for its own role', () => {
    for (const file of [deliver, release, staging]) expect(file.permissions).toEqual({ contents: 'read' });
    for (const { jobs } of [release, staging])
      for (const [name, job] of Object.entries(jobs)) {
        if (job.uses) continue;
        const stage = /^(?:deploy|smoke)-(staging|production)$/.exec(name)?.[1] as 'staging' | 'production' | undefined;
        expect(job.permissions?.['id-token'], name).toBe(stage ? 'write' : undefined);
        expect(roleOf(job), name).toBe(stage ? CI_ROLES.deploy(stage) : undefined);
      }
  });

  it('runs the CI checks first', () => {
    expect(runs(staging.jobs.checks!)).toContain('bash .ci/run');
  });
});

describe('every workflow', () => {
  it('pins every action by full commit SHA, with its version as a comment', () => {
    for (const file of WORKFLOW_FILES) {
      const text = readFileSync(new URL(`../../.github/workflows/${file}`, import.meta.url), 'utf8');
      const uses = [...text.matchAll(/uses:\s*(\S+)(.*)$/gm)];
      expect(uses.length, file).toBeGreaterThan(0);
      for (const [, action, rest] of uses) {
        // A reusable workflow of this repository runs at the run's own commit: nothing to pin.
        if (action!.startsWith('./.github/workflows/')) continue;
        expect(action, file).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
        expect(rest, `${file}: ${action}`).toMatch(/^ # v\d+\.\d+\.\d+$/);
      }
    }
  });

  it('has Dependabot keep the pinned actions current', () => {
    const config = parse(readFileSync(new URL('../../.github/dependabot.yml', import.meta.url), 'utf8'));
    expect(config.version).toBe(2);
    expect(config.updates).toContainEqual(
      expect.objectContaining({ 'package-ecosystem': 'github-actions', directory: '/' }),
    );
  });
});

describe('ci.yml (pull requests)', () => {
  const { jobs } = ci;

  it('runs the CI checks and a read-only cdk diff of both stages into the job summary', () => {
    expect(Object.keys(ci.on)).toEqual(['pull_request']);
    expect(runs(jobs.checks!)).toContain('bash .ci/run');
    const diff = runs(jobs.diff!);
    for (const stack of ['PetStore-staging', 'PetStore-production']) expect(diff).toContain(stack);
    expect(diff).toContain('npx cdk diff "$stack" -e --method template');
    expect(diff).toContain('$GITHUB_STEP_SUMMARY');
  });

  // The step as a runner runs it ("jobs.<job_id>.steps[*].shell": unset, `bash -e {0}`, whose pipe
  // ends with tee's status; `bash`, `bash --noprofile --norc -eo pipefail {0}`), with an `npx` that
  // fails for one stack: the check goes red, and the other stack's diff is still in the summary.
  it('a diff that fails fails the step, after both stacks were tried', () => {
    const step = jobs.diff!.steps!.find((s) => s.name === 'cdk diff')!;
    const dir = mkdtempSync(join(tmpdir(), 'petstore-diff-step-'));
    try {
      writeFileSync(join(dir, 'npx'), '#!/bin/sh\necho "diff of $3"\n[ "$3" != PetStore-staging ]\n', { mode: 0o755 });
      writeFileSync(join(dir, 'script.sh'), step.run!);
      const shell =
        step.shell === 'bash' ? ['--noprofile', '--norc', '-eo', 'pipefail'] : step.shell === undefined ? ['-e'] : [];
      expect(shell.length, `shell: ${step.shell}`).toBeGreaterThan(0);
      const run = spawnSync('bash', [...shell, join(dir, 'script.sh')], {
        env: { PATH: `${dir}:${process.env.PATH}`, GITHUB_STEP_SUMMARY: join(dir, 'summary.md') },
        encoding: 'utf8',
      });
      expect(run.status, run.stdout + run.stderr).not.toBe(0);
      const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(summary).toContain('diff of PetStore-staging');
      expect(summary).toContain('diff of PetStore-production');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('assumes the diff role only, and never for a fork', () => {
    expect(ci.permissions).toEqual({ contents: 'read' });
    expect(roleOf(jobs.diff!)).toBe(CI_ROLES.diff);
    expect(jobs.diff!.permissions?.['id-token']).toBe('write');
    expect(jobs.diff!.if).toBe('github.event.pull_request.head.repo.full_name == github.repository');
    expect(jobs.checks!.permissions).toBeUndefined();
  });
});
