// A fuzzing run against a running local server: fast-check draws requests, each is
// sent and its answer checked by the oracle; a failure shrinks to a small request.
// `parallel` independent properties (seeds seed, seed+1, …) run side by side, so
// the server also sees concurrent malformed traffic.
import fc from 'fast-check';
import { type Answer, httpClient } from '../http-client.ts';
import { violations } from './oracle.ts';
import { type FuzzRequest, fuzzRequest } from './requests.ts';

export interface FuzzOptions {
  baseUrl: string;
  key: string;
  /** Requests in all, shared among the parallel properties. */
  runs: number;
  timeLimitMs: number;
  parallel: number;
  seed?: number | undefined;
}

export interface FuzzOutcome {
  requests: number;
  statuses: Record<number, number>;
  /** The first failure: seed, shrunk request and its violations. */
  failure?: string;
  seed: number;
  interrupted: boolean;
}

const describe = (request: FuzzRequest) =>
  JSON.stringify({
    ...request,
    body:
      request.body &&
      (request.body.length > 300
        ? `${request.body.subarray(0, 300).toString('utf8')}… (${request.body.length} bytes)`
        : request.body.toString('utf8')),
  });

export const fuzz = async (options: FuzzOptions): Promise<FuzzOutcome> => {
  const statuses: Record<number, number> = {};
  let requests = 0;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);

  const one = async (index: number) => {
    const client = httpClient(new URL(options.baseUrl).origin, 1);
    const property = fc.asyncProperty(fuzzRequest(options.key), async (request) => {
      let answer: Answer;
      try {
        answer = await client.send(request);
      } catch (error) {
        throw new Error(`no answer (${(error as Error).message}) to ${describe(request)}`);
      }
      requests++;
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      const found = violations(request, answer, { key: options.key });
      if (found.length)
        throw new Error(
          `${found.join('; ')}\nrequest: ${describe(request)}\nanswer: ${answer.status} ${answer.body.slice(0, 500)}`,
        );
    });
    try {
      return await fc.check(property, {
        numRuns: Math.ceil(options.runs / options.parallel),
        interruptAfterTimeLimit: options.timeLimitMs,
        markInterruptAsFailure: false,
        seed: seed + index,
      });
    } finally {
      client.close();
    }
  };

  const runs = await Promise.all(Array.from({ length: options.parallel }, (_, index) => one(index)));
  const failed = runs.find((details) => details.failed);
  return {
    requests,
    statuses,
    seed,
    interrupted: runs.some((details) => details.interrupted),
    ...(failed && {
      // The shrunk request and its violations; fast-check's own report would print bodies byte by byte.
      failure: `seed ${failed.seed}, path ${failed.counterexamplePath}, shrunk ${failed.numShrinks} times: ${(failed.errorInstance as Error)?.message ?? 'failed'}`,
    }),
  };
};
