// The delivery pipeline as .github/workflows says it: pull requests get the checks and a
// read-only diff; main goes staging → smoke, and a run started by hand on main (the approval,
// on every GitHub plan) goes on → production → smoke, each step
// needing the one before, one deploy per stage at a time, the same assembly everywhere, and
// an AWS token only where a deploy or the diff needs one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CI_ROLES } from '../../infra/ci/github.ts';
import { environmentOf, type Job, needsOf, roleOf, workflow } from '../support/workflows.ts';

const deliver = workflow('deliver.yml');
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
const runs = (job: Job) => job.steps.map((step) => step.run ?? '').join('\n');

describe('deliver.yml (main)', () => {
  const { jobs } = deliver;

  it('runs on pushes to main, and by hand (the release of production)', () => {
    expect(deliver.on).toEqual({ push: { branches: ['main'] }, workflow_dispatch: null });
  });

  it('promotes staging → smoke staging → approval → production → smoke production, each after the one before', () => {
    const order = ['checks', 'synth', 'deploy-staging', 'smoke-staging', 'deploy-production', 'smoke-production'];
    expect(Object.keys(jobs).sort()).toEqual([...order].sort());
    for (const [i, job] of order.entries()) {
      // Directly after the one before: a failed job stops everything after it.
      if (i > 0) expect(needsOf(jobs[job]!), job).toEqual([order[i - 1]]);
      expect([...upstream(jobs, job)].sort(), job).toEqual(order.slice(0, i).sort());
    }
    expect(environmentOf(jobs['deploy-production']!)).toBe('production');
    expect(environmentOf(jobs['deploy-staging']!)).toBe('staging');
    for (const [name, job] of Object.entries(jobs))
      if (name !== 'deploy-production') expect(job.if, 'no job runs on failure or always()').toBeUndefined();
  });

  it('deploys production only from a run started by hand on main: an approval on every GitHub plan', () => {
    // Required reviewers need GitHub Enterprise for a private repository (docs/deploying.md: The
    // approval); a push to main must therefore stop after staging's smoke run.
    expect(jobs['deploy-production']!.if).toBe(
      "github.event_name == 'workflow_dispatch' && github.ref == 'refs/heads/main'",
    );
  });

  it('deploys the one assembly synth made (and its first-deploy twin) with npm run deploy, as a person does', () => {
    expect(runs(jobs.synth!)).toContain('npx cdk synth --quiet\n');
    expect(runs(jobs.synth!)).toContain('npx cdk synth --quiet -c firstDeploy=true --output cdk.out.first');
    const upload = jobs.synth!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.with).toMatchObject({ name: expr('env.ASSEMBLY'), path: 'cdk.out\ncdk.out.first\n' });
    expect(deliver.env?.ASSEMBLY).toBe(`cloud-assembly-${expr('github.sha')}`);
    for (const stage of ['staging', 'production']) {
      const job = jobs[`deploy-${stage}`]!;
      const download = job.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'))!;
      expect(download.with).toEqual({ name: expr('env.ASSEMBLY'), path: '.' });
      expect(runs(job)).toContain(
        `npm run deploy -- --stage ${stage} --assembly cdk.out --first-deploy-assembly cdk.out.first --outputs-file outputs.json`,
      );
      expect(runs(job)).not.toMatch(/cdk synth|cdk deploy/);
    }
  });

  it('deploys one stage at a time, never cancelling a deploy in flight', () => {
    for (const stage of ['staging', 'production'])
      expect(jobs[`deploy-${stage}`]!.concurrency).toEqual({ group: `deploy-${stage}`, 'cancel-in-progress': false });
  });

  it('smokes staging in write mode and production read-only, each against the address its deploy printed', () => {
    expect(runs(jobs['smoke-staging']!)).toMatch(
      /npm run smoke -- --base-url "\$\{\{ needs\.deploy-staging\.outputs\.base-url \}\}" --key "\$PETSTORE_SMOKE_KEY"$/m,
    );
    expect(runs(jobs['smoke-production']!)).toMatch(
      /npm run smoke -- --base-url "\$\{\{ needs\.deploy-production\.outputs\.base-url \}\}" --key "\$PETSTORE_SMOKE_KEY" --read-only$/m,
    );
    // Not `production`: its reviewers would be asked a second time.
    expect(environmentOf(jobs['smoke-production']!)).toBe('production-smoke');
  });

  it('gives an AWS token only to the deploy jobs, each for its own role', () => {
    expect(deliver.permissions).toEqual({ contents: 'read' });
    for (const [name, job] of Object.entries(jobs)) {
      const stage = /^deploy-(staging|production)$/.exec(name)?.[1] as 'staging' | 'production' | undefined;
      expect(job.permissions?.['id-token'], name).toBe(stage ? 'write' : undefined);
      expect(roleOf(job), name).toBe(stage ? CI_ROLES.deploy(stage) : undefined);
    }
  });

  it('runs the CI checks first', () => {
    expect(runs(jobs.checks!)).toContain('bash .ci/run');
  });
});

describe('every workflow', () => {
  it('pins every action by full commit SHA, with its version as a comment', () => {
    for (const file of ['ci.yml', 'deliver.yml']) {
      const text = readFileSync(new URL(`../../.github/workflows/${file}`, import.meta.url), 'utf8');
      const uses = [...text.matchAll(/uses:\s*(\S+)(.*)$/gm)];
      expect(uses.length, file).toBeGreaterThan(0);
      for (const [, action, rest] of uses) {
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
    expect(diff).toContain('npx cdk diff "$stack" --method template');
    expect(diff).toContain('$GITHUB_STEP_SUMMARY');
  });

  it('assumes the diff role only, and never for a fork', () => {
    expect(ci.permissions).toEqual({ contents: 'read' });
    expect(roleOf(jobs.diff!)).toBe(CI_ROLES.diff);
    expect(jobs.diff!.permissions?.['id-token']).toBe('write');
    expect(jobs.diff!.if).toBe('github.event.pull_request.head.repo.full_name == github.repository');
    expect(jobs.checks!.permissions).toBeUndefined();
  });
});
