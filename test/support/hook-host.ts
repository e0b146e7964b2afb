// The three AWS APIs the pre-traffic hook calls (functions/pre-traffic-hook.ts), on 127.0.0.1,
// so that the real hook runs with its real SDK clients: Lambda's Invoke routed to the local
// handlers (as Lambda answers it: the payload, and X-Amz-Function-Error when the function
// threw), CodeDeploy's PutLifecycleEventHookExecutionStatus recorded, and Secrets Manager's
// GetSecretValue answered from a map. Point the SDK at it with AWS_ENDPOINT_URL_<SERVICE>.
import { createServer, type IncomingMessage } from 'node:http';
import { listenOnLoopback } from '../../tools/harness/loopback.ts';

/** What an invoked function did: its result, or the error it threw. */
export type Invoked = { result: unknown } | { error: Error };

interface LifecycleReport {
  deploymentId: string;
  lifecycleEventHookExecutionId: string;
  status: string;
}

export interface HookHost {
  endpoint: string;
  /** Every status the hook reported to CodeDeploy, in order. */
  reports: LifecycleReport[];
  /** The qualified function names the hook invoked (denied calls included). */
  invoked: string[];
  /**
   * How many of the next Invoke calls are refused as IAM refuses a call its policy does not (yet)
   * allow: HTTP 403, AccessDeniedException (Lambda's Invoke errors:
   * https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html#API_Invoke_Errors).
   */
  denyNextInvokes: number;
  close(): Promise<void>;
}

const INVOKE = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

const bodyOf = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export const startHookHost = async (options: {
  /** Runs the function named by the Invoke call (a version ARN) with `event`. */
  invoke(functionName: string, event: unknown): Promise<Invoked>;
  secrets: Readonly<Record<string, string>>;
}): Promise<HookHost> => {
  const reports: LifecycleReport[] = [];
  const invoked: string[] = [];
  const denial = { next: 0 };
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      response.end(JSON.stringify(value));
    };
    const invoke = INVOKE.exec(request.url ?? '');
    if (invoke) {
      const name = decodeURIComponent(invoke[1]!);
      invoked.push(name);
      if (denial.next > 0) {
        denial.next -= 1;
        return json(
          403,
          { Type: 'User', message: `not authorized to perform: lambda:InvokeFunction on resource: ${name}` },
          { 'X-Amzn-ErrorType': 'AccessDeniedException' },
        );
      }
      const outcome = await options.invoke(name, JSON.parse(body));
      if ('result' in outcome) return json(200, outcome.result ?? null);
      const { name: errorType, message: errorMessage } = outcome.error;
      return json(200, { errorType, errorMessage, trace: [] }, { 'X-Amz-Function-Error': 'Unhandled' });
    }
    const target = String(request.headers['x-amz-target'] ?? '');
    const input = JSON.parse(body || '{}');
    if (target === 'CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus') {
      reports.push(input);
      return json(200, { lifecycleEventHookExecutionId: input.lifecycleEventHookExecutionId });
    }
    if (target === 'secretsmanager.GetSecretValue' && input.SecretId in options.secrets) {
      return json(200, { ARN: input.SecretId, Name: input.SecretId, SecretString: options.secrets[input.SecretId] });
    }
    json(400, { __type: 'UnknownOperationException', message: `not emulated: ${target || request.url}` });
  });
  const listening = await listenOnLoopback(server);
  return {
    endpoint: listening.endpoint,
    reports,
    invoked,
    get denyNextInvokes() {
      return denial.next;
    },
    set denyNextInvokes(count: number) {
      denial.next = count;
    },
    close: listening.close,
  };
};
