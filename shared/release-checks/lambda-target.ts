// The checks' target deployed: the version under test, invoked directly through Lambda's Invoke
// (RequestResponse) with the events API Gateway would send, its answer read as API Gateway reads it.
// An AccessDeniedException is retried for a while: the hook's grant (infra/constructs/release-hook.ts)
// is IAM, which is eventually consistent, and a deploy may change it seconds before CodeDeploy runs
// the hook (aws/aws-cdk#29871; IAM's "changes that I make are not always immediately visible":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_general.html#troubleshoot_general_eventual-consistency).
// A denial that outlasts the window is a release that failed, as before.
import { setTimeout as sleep } from 'node:timers/promises';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import type { AuthorizerAnswer, CheckTarget } from './checks.ts';

/** The message of a thrown error that API Gateway turns into a 401 (shared/lambda/authorizer-handler.ts). */
const REFUSAL_MESSAGE = 'Unauthorized';

/** How long a denied Invoke is retried: IAM's changes usually show within seconds. */
const ACCESS_DENIED_RETRY_MS = 30_000;
const FIRST_RETRY_DELAY_MS = 250;
const MAX_RETRY_DELAY_MS = 4_000;

export const lambdaTarget = (
  client: LambdaClient,
  functionArn: string,
  { accessDeniedRetryMs = ACCESS_DENIED_RETRY_MS } = {},
): CheckTarget => {
  // One window for all of the target's calls, opened by the first denial: every check retrying
  // for the whole window would outlast the hook's timeout, and an unreported hook holds the deploy.
  let deniedUntil: number | undefined;
  /** Sends `command`, again after an AccessDeniedException while the window lasts. */
  const send = async (command: InvokeCommand) => {
    for (let delay = FIRST_RETRY_DELAY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS)) {
      try {
        return await client.send(command);
      } catch (error) {
        if ((error as Error).name !== 'AccessDeniedException') throw error;
        deniedUntil ??= Date.now() + accessDeniedRetryMs;
        if (Date.now() + delay > deniedUntil) throw error;
        await sleep(delay);
      }
    }
  };
  const invoke = async (event: unknown): Promise<{ error?: string; answer: unknown }> => {
    const output = await send(
      new InvokeCommand({ FunctionName: functionArn, Payload: Buffer.from(JSON.stringify(event)) }),
    );
    const answer: unknown = output.Payload?.length
      ? JSON.parse(Buffer.from(output.Payload).toString('utf8'))
      : undefined;
    // A function error (the handler threw, timed out, crashed): Lambda names it in FunctionError.
    if (output.FunctionError) {
      const message = (answer as { errorMessage?: unknown } | undefined)?.errorMessage;
      return { error: String(message ?? output.FunctionError), answer };
    }
    return { answer };
  };
  return {
    http: async (event) => {
      const { error, answer } = await invoke(event);
      if (error !== undefined) throw new Error(error);
      return answer as APIGatewayProxyResult;
    },
    authorize: async (event): Promise<AuthorizerAnswer> => {
      const { error, answer } = await invoke(event);
      if (error === REFUSAL_MESSAGE) return { kind: 'refused' };
      if (error !== undefined) return { kind: 'failed', message: error };
      return { kind: 'allowed', result: answer as APIGatewayAuthorizerResult };
    },
  };
};
