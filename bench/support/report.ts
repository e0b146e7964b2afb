// bench/results.json and the printed tables, every figure set against its target.
import { keysTable } from '../../shared/dynamodb/tables.ts';
import type { AuthorizerFigures } from './authorizer.ts';
import type { CompareOptions, Comparison, SideFigures } from './compare.ts';
import { describeMachine, type MachineInfo } from './machine.ts';
import { round, table, verdict } from './stats.ts';

const TARGETS = {
  p99RatioToBaseline: 1.5,
  dynamodbRequests: { getPet: 1, listPets: 1, createPet: 1.05 },
  authorizerRequestsPerMiss: 1,
  filteredP50RatioLargeToSmall: 1.2,
} as const;

export interface ReportInput {
  machine: MachineInfo;
  options: CompareOptions;
  scalingOptions: CompareOptions;
  authorizerCacheTtlSeconds: number;
  seeding: Record<'small' | 'large', { animals: number; ms: number }>;
  operations: Comparison[];
  scaling: Comparison[];
  authorizer: AuthorizerFigures;
}

/** DynamoDB requests per API request, leaving out the authorizer's (keys table). */
const requestsPerRequest = (side: SideFigures): number =>
  round(
    Object.entries(side.dynamodbRequestsPerRequest).reduce(
      (sum, [name, n]) => (name.endsWith(` ${keysTable.name}`) ? sum : sum + n),
      0,
    ),
    3,
  );
/** The same, for the local stage of a comparison. */
const dataRequests = (c: Comparison): number => requestsPerRequest(c.measured);

const buildResults = (input: ReportInput) => {
  const { operations, scaling, authorizer } = input;
  const targets: Array<{ figure: string; target: string; measured: number; met: boolean }> = [];
  const check = (figure: string, target: string, measured: number, met: boolean) =>
    targets.push({ figure, target, measured, met });

  for (const c of operations)
    check(
      `${c.name}: p99 ÷ baseline p99`,
      `≤ ${TARGETS.p99RatioToBaseline}`,
      c.p99Ratio,
      c.p99Ratio <= TARGETS.p99RatioToBaseline,
    );
  for (const c of operations) {
    const limit = TARGETS.dynamodbRequests[c.name as keyof typeof TARGETS.dynamodbRequests];
    const measured = dataRequests(c);
    if (c.name === 'createPet')
      check(`${c.name}: DynamoDB requests per request`, `≤ ${limit}`, measured, measured <= limit);
    else check(`${c.name}: DynamoDB requests per request`, `${limit}`, measured, measured === limit);
  }
  check(
    'authorizer: DynamoDB requests per cache miss',
    `≤ ${TARGETS.authorizerRequestsPerMiss}`,
    authorizer.keysTableRequestsPerMiss,
    authorizer.keysTableRequestsPerMiss <= TARGETS.authorizerRequestsPerMiss,
  );
  for (const c of scaling.filter((s) => s.name.endsWith('local stage'))) {
    check(
      `${c.name.replace(': local stage', '')}: p50 at 100,000 ÷ p50 at 1,000`,
      `≤ ${TARGETS.filteredP50RatioLargeToSmall}`,
      c.p50Ratio,
      c.p50Ratio <= TARGETS.filteredP50RatioLargeToSmall,
    );
  }

  const all = [...operations, ...scaling];
  return {
    measuredAt: new Date().toISOString(),
    machine: input.machine,
    options: {
      ...input.options,
      scaling: input.scalingOptions,
      authorizerCacheTtlSeconds: input.authorizerCacheTtlSeconds,
    },
    seeding: Object.fromEntries(
      Object.entries(input.seeding).map(([size, s]) => [
        size,
        { animals: s.animals, ms: Math.round(s.ms), animalsPerSecond: Math.round((s.animals / s.ms) * 1000) },
      ]),
    ),
    operations,
    scaling,
    authorizer,
    targets,
    failedRequests:
      all.reduce((sum, c) => sum + c.reference.failed + c.measured.failed, 0) + authorizer.unexpectedStatuses,
  };
};
type Results = ReturnType<typeof buildResults>;

/** Prints the tables and returns what goes into bench/results.json. */
export const report = (input: ReportInput): Results => {
  const results = buildResults(input);
  print(input, results);
  return results;
};

const print = (input: ReportInput, results: Results) => {
  const out = (text = '') => process.stdout.write(`${text}\n`);
  const { options, authorizer } = input;
  const perRound = (ratios: number[]) => ratios.join(' ');
  out(`\nMachine: ${describeMachine(input.machine)}`);
  out(
    `Load: ${options.concurrency} connections; ${options.rounds} rounds of ${options.roundMs} ms per side (scaling: ${input.scalingOptions.rounds} of ${input.scalingOptions.roundMs} ms), sides alternating; authorizer cache TTL ${input.authorizerCacheTtlSeconds} s`,
  );
  out(
    `Seeding (BatchWrite, 16 in flight): ${Object.values(results.seeding)
      .map((s) => `${s.animals} animals in ${s.ms} ms (${s.animalsPerSecond}/s)`)
      .join('; ')}`,
  );
  out(
    '\nLocal stage against the baseline (same DynamoDB call, no gateway, middleware, validation or auth); ratio: median over rounds;',
  );
  out('CPU ms/req: the server process, its embedded DynamoDB included');
  out(
    table([
      [
        'operation',
        'p50 ms',
        'p99 ms',
        'req/s',
        'CPU ms/req',
        'base p50',
        'base p99',
        'base req/s',
        'base CPU',
        'p99 ratio',
        'p99 ratio per round',
        'DDB req/op',
      ],
      ...input.operations.map((c) => [
        c.name,
        c.measured.p50,
        c.measured.p99,
        c.measured.requestsPerSecond,
        c.measured.cpuMsPerRequest,
        c.reference.p50,
        c.reference.p99,
        c.reference.requestsPerSecond,
        c.reference.cpuMsPerRequest,
        c.p99Ratio,
        perRound(c.p99RatioPerRound),
        dataRequests(c),
      ]),
    ]),
  );
  out('\nFiltered listing (status, limit 20): 100,000 animals against 1,000, side by side; ratio: median over rounds');
  out(
    table([
      [
        'listing',
        'p50 1k',
        'p50 100k',
        'p50 ratio',
        'p50 ratio per round',
        'p99 1k',
        'p99 100k',
        'CPU ms/req 1k',
        'CPU 100k',
        'DDB req/op 1k',
        '100k',
      ],
      ...input.scaling.map((c) => [
        c.name,
        c.reference.p50,
        c.measured.p50,
        c.p50Ratio,
        perRound(c.p50RatioPerRound),
        c.reference.p99,
        c.measured.p99,
        c.reference.cpuMsPerRequest,
        c.measured.cpuMsPerRequest,
        requestsPerRequest(c.reference),
        requestsPerRequest(c.measured),
      ]),
    ]),
  );
  out(
    `\nAuthorizer (${authorizer.misses} keys, one request each, then again): DynamoDB requests per cache miss ${authorizer.keysTableRequestsPerMiss}, ` +
      `per hit ${authorizer.keysTableRequestsPerHit}, per unknown key ${authorizer.keysTableRequestsPerUnknownKey}; p50 miss ${authorizer.missP50} ms, hit ${authorizer.hitP50} ms`,
  );
  out('\nTargets:');
  out(
    table([
      ['figure', 'target', 'measured', ''],
      ...results.targets.map((t) => [t.figure, t.target, t.measured, verdict(t.met)]),
    ]),
  );
  if (results.failedRequests > 0)
    out(`\n${results.failedRequests} requests FAILED: the figures above are not to be trusted`);
};
