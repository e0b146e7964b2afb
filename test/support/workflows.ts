// The GitHub Actions workflows of .github/workflows, parsed: what the workflow and CI-stack
// tests read.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  /** GitHub's `shell:`; unset, a Linux runner's default (`bash -e {0}`). */
  shell?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
export interface Job {
  name?: string;
  needs?: string | string[];
  environment?: string | { name: string };
  /** A reusable workflow the job calls. */
  uses?: string;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  if?: string;
  'timeout-minutes'?: number;
  steps?: Step[];
}
export interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

export const WORKFLOW_FILES = ['ci.yml', 'deliver.yml', 'release.yml', 'staging.yml'] as const;
export const workflow = (file: (typeof WORKFLOW_FILES)[number]): Workflow =>
  parse(readFileSync(new URL(`../../.github/workflows/${file}`, import.meta.url), 'utf8')) as Workflow;

export const needsOf = (job: Job): string[] => [job.needs ?? []].flat();
export const environmentOf = (job: Job): string | undefined =>
  typeof job.environment === 'object' ? job.environment.name : job.environment;
/** The role a job's aws-actions/configure-aws-credentials step assumes, by name. */
export const roleOf = (job: Job): string | undefined =>
  (job.steps ?? [])
    .find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'))
    ?.with?.['role-to-assume']?.split(':role/')[1];
