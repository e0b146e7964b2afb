// The checks' target deployed: the version under test, invoked directly through Lambda's Invoke
// (RequestResponse) with the events API Gateway would send, its answer read as API Gateway reads it.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import type { AuthorizerAnswer, CheckTarget } from './checks.ts';

/** The message of a thrown error that API Gateway turns into a 401 (shared/lambda/authorizer-handler.ts). */
const REFUSAL_MESSAGE = 'Unauthorized';

export const lambdaTarget = (client: LambdaClient, functionArn: string): CheckTarget => {
  const invoke = async (event: unknown): Promise<{ error?: string; answer: unknown }> => {
    const output = await client.send(
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
