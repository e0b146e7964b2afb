// What each of the local stage's two lines per request costs, piece by piece, in CPU time per
// line over many lines (robust to a busy machine, where wall time is not): building the
// function's summary line (its request fields, the JSON), building the gateway's access line,
// writing lines to a pipe as the stage writes them (held for the turn, then one writev), and the
// reader of that pipe (`cat` into /dev/null, its own CPU from /proc). Run with the project's Node:
// npx node bench/log-lines.ts (LINES=200000 by default; ROUNDS=5, the median printed; PARTS, a
// comma-separated subset of summary,access,write, for instruction counts under callgrind).
import { spawn } from 'node:child_process';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AccessLogLine } from '../infra/access-log.ts';

// The local stage's functions' environment (function-environment.ts): INFO, metrics off. Read at
// import by the Logger and the summary line, so set before the modules load.
Object.assign(process.env, {
  POWERTOOLS_SERVICE_NAME: 'petstore',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  POWERTOOLS_METRICS_DISABLED: 'true',
  PETSTORE_COMMIT: '0123456789ab',
});
const { lambdaContext } = await import('../infra/local/lambda-runtime.ts');
const { stageOptionsFromEnvironment } = await import('../infra/local/options.ts');
const { createCursorCodec } = await import('../shared/domain/cursor.ts');
const { requestInputs } = await import('../shared/lambda/request-fields.ts');
const { logRequestSummary, metric, startInvocation } = await import('../shared/observability/telemetry.ts');

const LINES = Number(process.env.LINES ?? 200_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const cpuNs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) * 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CPU ns per call of `fn`, median of ROUNDS rounds of LINES calls. */
const perCall = (fn: () => void): number =>
  median(
    Array.from({ length: ROUNDS }, () => {
      const start = process.cpuUsage();
      for (let i = 0; i < LINES; i++) fn();
      return cpuNs(start) / LINES;
    }),
  );

const cursor = createCursorCodec('s'.repeat(40)).encode({ after: 1234, status: 'sold' });
const event = {
  multiValueQueryStringParameters: { status: ['sold'], limit: ['20'], cursor: [cursor] },
  pathParameters: null,
  requestContext: { requestId: 'c0ffee00-0000-4000-8000-000000000000' },
} as unknown as APIGatewayProxyEvent;
const context = lambdaContext('petstore-local-listPets', Date.now() + 10_000);

/** The summary line of a listing, with its request fields, written into nothing. */
const summary = () => {
  const invocation = startInvocation(context, undefined); // the local stage's invocations have no trace header
  logRequestSummary(
    invocation,
    {
      operation: 'listPets',
      status: 200,
      errorCode: undefined,
      latencyMs: 1.23,
      keyId: 'key_AbC123xYz0',
      requestId: event.requestContext.requestId,
      ...requestInputs(event, context),
    },
    [
      metric('requests', { operation: 'listPets', statusClass: '2xx' }),
      metric('latency', { operation: 'listPets' }, 1.23),
    ],
  );
};

const printAccessLine = stageOptionsFromEnvironment('bench', { ...process.env, LOG_LEVEL: 'INFO' }).accessLog!;
const accessLine = (): AccessLogLine => ({
  requestId: 'c0ffee00-0000-4000-8000-000000000000',
  keyId: 'key_AbC123xYz0',
  requestTime: '29/Nov/2026:01:31:07 +0000',
  requestTimeEpoch: 1_795_829_467_000,
  sourceIp: '127.0.0.1',
  userAgent: 'curl/8.5.0',
  httpMethod: 'GET',
  path: '/v1/pets',
  resourcePath: '/v1/pets',
  protocol: 'HTTP/1.1',
  status: 200,
  responseLength: 1234,
  responseLatency: 2,
  integrationLatency: 1,
  errorResponseType: null,
  errorMessage: null,
  authorizerRequestId: null,
  authorizerError: null,
  integrationError: null,
  integrationErrorMessage: null,
});

/** Builds with stdout.write a no-op: what the line costs before the write. */
const building = (fn: () => void): number => {
  const write = process.stdout.write;
  let bytes = 0;
  process.stdout.write = ((chunk: string) => {
    bytes += chunk.length;
    return true;
  }) as typeof process.stdout.write;
  let ns: number;
  try {
    ns = perCall(fn);
  } finally {
    process.stdout.write = write;
  }
  if (bytes === 0) throw new Error('nothing was written');
  return ns;
};

/** Writing LINES lines to a pipe read by `cat`, a request's two per turn, held as the stage holds them. */
const writing = async (summaryText: string, accessText: string) => {
  // The reader's CPU, as its shell's `times` reports its children's: user and system seconds.
  const reader = spawn('bash', ['-c', 'cat > /dev/null; times'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let report = '';
  reader.stdout!.on('data', (chunk: Buffer) => {
    report += chunk;
  });
  const pipe = reader.stdin!;
  const start = process.cpuUsage();
  for (let i = 0; i < LINES; i += 2) {
    pipe.cork();
    pipe.write(summaryText);
    pipe.write(accessText);
    await new Promise<void>((resolve) => setImmediate(resolve));
    pipe.uncork();
    if (pipe.writableNeedDrain) await new Promise((resolve) => pipe.once('drain', resolve));
  }
  const writer = cpuNs(start) / LINES;
  pipe.end();
  await new Promise((resolve) => reader.once('exit', resolve));
  const seconds = [...(report.trim().split('\n')[1] ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map(
    ([, m, s]) => Number(m) * 60 + Number(s),
  );
  return { writer, reader: (((seconds[0] ?? 0) + (seconds[1] ?? 0)) * 1e9) / LINES };
};

const sample = (() => {
  const write = process.stdout.write;
  let out = '';
  process.stdout.write = ((chunk: string) => {
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  summary();
  printAccessLine(accessLine());
  process.stdout.write = write;
  return out.split('\n').filter(Boolean);
})();

const PARTS = new Set((process.env.PARTS ?? 'summary,access,write').split(','));
const inputsNs = PARTS.has('summary') ? perCall(() => requestInputs(event, context)) : 0;
const summaryNs = PARTS.has('summary') ? building(summary) : 0;
const accessNs = PARTS.has('access') ? building(() => printAccessLine(accessLine())) : 0;
const written = PARTS.has('write')
  ? await writing(`${sample.at(-2)}\n`, `${sample.at(-1)}\n`)
  : { writer: 0, reader: 0 };
console.log(
  JSON.stringify(
    {
      lines: LINES,
      rounds: ROUNDS,
      bytes: { summary: sample.at(-2)!.length, access: sample.at(-1)!.length },
      nsPerLine: {
        summaryBuild: Math.round(summaryNs),
        ofWhichRequestInputs: Math.round(inputsNs),
        accessBuild: Math.round(accessNs),
        write: Math.round(written.writer),
        reader: Math.round(written.reader),
      },
    },
    null,
    1,
  ),
);
