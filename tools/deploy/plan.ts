// What `npm run deploy -- --stage <stage>` does, decided from the stack's status alone (no AWS
// call here: tools/deploy/cli.ts asks CloudFormation). A stage that does not exist yet is
// created with the first-deploy settings (infra/stages.ts: firstDeploySettings: no termination
// or deletion protection, nothing retained), so that a failed create rolls back to a stack the
// CLI can delete and the same command can run again; once it stands, a second deploy with the
// stage's own settings turns every protection on. A stage that exists gets one deploy.

import { FIRST_DEPLOY_CONTEXT } from '../../infra/stage-deployment.ts';
import { type DeployedStage, stackName } from '../../infra/stages.ts';

export interface DeployOptions {
  readonly stage: DeployedStage;
  /** A synthesized cloud assembly (the pipeline's cdk.out); unset, the CLI synthesizes the app. */
  readonly assembly?: string | undefined;
  /** The same commit synthesized with `-c firstDeploy=true` (the pipeline's cdk.out.first). */
  readonly firstDeployAssembly?: string | undefined;
  readonly outputsFile?: string | undefined;
}

export interface DeployPlan {
  readonly firstDeploy: boolean;
  /** Why, in a line, for the log. */
  readonly reason: string;
  /** Each `cdk` invocation, its arguments, in order. */
  readonly commands: readonly (readonly string[])[];
}

/**
 * Statuses in which the stack holds nothing a create would collide with: REVIEW_IN_PROGRESS (a
 * change set never executed) and ROLLBACK_COMPLETE (a failed create: only deletable, and the CLI
 * deletes it before creating again; possible because the first deploy leaves termination
 * protection off).
 */
const NOT_CREATED = new Set(['REVIEW_IN_PROGRESS', 'ROLLBACK_COMPLETE']);
/** A deploy can update the stack from these (its last operation finished, for better or worse). */
const UPDATABLE = new Set([
  'CREATE_COMPLETE',
  'UPDATE_COMPLETE',
  'UPDATE_ROLLBACK_COMPLETE',
  'IMPORT_COMPLETE',
  'IMPORT_ROLLBACK_COMPLETE',
]);

export class RefusedDeploy extends Error {}

/** `status`: the stack's StackStatus, or undefined when CloudFormation has no such stack. */
export const planDeploy = (options: DeployOptions, status: string | undefined): DeployPlan => {
  const stack = stackName(options.stage);
  const deploy = (assembly: string | undefined, extra: readonly string[], last: boolean): string[] => [
    'deploy',
    stack,
    '--exclusively',
    '--require-approval',
    'never',
    ...(assembly === undefined ? extra : ['--app', assembly]),
    ...(last && options.outputsFile !== undefined ? ['--outputs-file', options.outputsFile] : []),
  ];
  if (status === undefined || NOT_CREATED.has(status)) {
    if (options.assembly !== undefined && options.firstDeployAssembly === undefined)
      throw new RefusedDeploy(
        `${stack} does not exist yet: its first deploy needs --first-deploy-assembly (cdk synth -c ${FIRST_DEPLOY_CONTEXT}=true)`,
      );
    return {
      firstDeploy: true,
      reason:
        status === undefined
          ? `${stack} does not exist: first deploy, protections off, then on`
          : `${stack} is ${status} (never created): the CLI deletes it, then first deploy, protections off, then on`,
      commands: [
        deploy(options.firstDeployAssembly, ['-c', `${FIRST_DEPLOY_CONTEXT}=true`], false),
        deploy(options.assembly, [], true),
      ],
    };
  }
  if (UPDATABLE.has(status))
    return {
      firstDeploy: false,
      reason: `${stack} is ${status}: one deploy`,
      commands: [deploy(options.assembly, [], true)],
    };
  if (status.endsWith('_IN_PROGRESS'))
    throw new RefusedDeploy(
      `${stack} is ${status}: another operation is running; wait for it to finish and run this again`,
    );
  throw new RefusedDeploy(
    `${stack} is ${status}: it needs a hand first (docs/deploying.md: A stack that needs a hand)`,
  );
};
