// The EMF members a summary line carries: one directive per dimension set, exactly the declared
// dimensions, every value at the root, and nothing at all when metrics are off; each metric as
// Powertools Metrics writes it.
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type EmfMembers,
  type EmfSettings,
  emfMembers,
  type MetricRecord,
  metric,
  withEmfMembers,
} from '../../shared/observability/emf.ts';
import { METRICS } from '../../shared/observability/metric-names.ts';
import { lambdaContext } from '../support/in-process.ts';

const on: EmfSettings = { namespace: 'PetStore/test', service: 'petstore', disabled: false };
/** As CloudWatch reads the line: through its JSON (the members alone on a line). */
const asJson = (members: EmfMembers | undefined) => JSON.parse(withEmfMembers({}, members));

describe('emfMembers', () => {
  it('one directive per dimension set, each with exactly its declared dimensions and service', () => {
    const members = asJson(
      emfMembers(
        [
          metric('requests', { operation: 'getPet', statusClass: '2xx' }),
          metric('latency', { operation: 'getPet' }, 1.25),
          metric('deprecatedCalls', { operation: 'getPet', keyId: 'key_a' }),
          metric('coldStart', { function_name: 'petstore-test-getPet' }),
        ],
        on,
      ),
    );
    expect(members._aws.Timestamp).toEqual(expect.any(Number));
    expect(members._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'PetStore/test',
        Dimensions: [['service', 'operation', 'statusClass']],
        Metrics: [{ Name: 'Requests', Unit: 'Count' }],
      },
      {
        Namespace: 'PetStore/test',
        Dimensions: [['service', 'operation']],
        Metrics: [{ Name: 'Latency', Unit: 'Milliseconds' }],
      },
      {
        Namespace: 'PetStore/test',
        Dimensions: [['service', 'operation', 'keyId']],
        Metrics: [{ Name: 'DeprecatedCalls', Unit: 'Count' }],
      },
      {
        Namespace: 'PetStore/test',
        Dimensions: [['service', 'function_name']],
        Metrics: [{ Name: 'ColdStart', Unit: 'Count' }],
      },
    ]);
    expect(members).toMatchObject({
      operation: 'getPet',
      statusClass: '2xx',
      keyId: 'key_a',
      function_name: 'petstore-test-getPet',
      Requests: 1,
      Latency: 1.25,
      DeprecatedCalls: 1,
      ColdStart: 1,
    });
    // The Logger writes `service` on every line; a line of metrics alone must carry it itself.
    expect(members.service).toBeUndefined();
    expect(asJson(emfMembers([metric('latency', { operation: 'getPet' }, 2)], on, true)).service).toBe('petstore');
  });

  it('metrics sharing a dimension set share a directive; a metric recorded twice has both values', () => {
    const members = asJson(
      emfMembers(
        [
          metric('latency', { operation: 'createPet' }, 3),
          metric('validationFailures', { operation: 'createPet' }),
          metric('latency', { operation: 'createPet' }, 4),
        ],
        on,
      ),
    );
    expect(members._aws.CloudWatchMetrics).toHaveLength(1);
    expect(members._aws.CloudWatchMetrics[0].Metrics.map((m: { Name: string }) => m.Name)).toEqual([
      METRICS.latency.name,
      METRICS.validationFailures.name,
    ]);
    expect(members.Latency).toEqual([3, 4]);
  });

  it('refuses a dimension with two values in one line, and undeclared dimensions', () => {
    expect(() =>
      emfMembers(
        [metric('latency', { operation: 'getPet' }), metric('requests', { operation: 'listPets', statusClass: '2xx' })],
        on,
      ),
    ).toThrow(/operation has two values/);
    expect(() => metric('latency', { operation: 'getPet', keyId: 'key_a' })).toThrow(/takes dimensions \[operation\]/);
    expect(() => metric('requests', { operation: 'getPet' })).toThrow(/takes dimensions/);
  });

  it('nothing when metrics are disabled, or when there are none', () => {
    expect(emfMembers([metric('latency', { operation: 'getPet' }, 1)], { ...on, disabled: true })).toBeUndefined();
    expect(emfMembers([], on)).toBeUndefined();
    expect(withEmfMembers({ a: 1 }, undefined)).toBe('{"a":1}');
  });
});

describe('the members merged into a line', () => {
  const records = () => [
    metric('requests', { operation: 'getPet', statusClass: '2xx' }),
    metric('latency', { operation: 'getPet' }, 1.5),
    metric('deprecatedCalls', { operation: 'getPet', keyId: 'unknown' }),
  ];
  /** What one serialized object gives: the line's fields, then `_aws` and the values (the spread's rules). */
  const spread = (fields: object, members: EmfMembers) => {
    const { _aws, ...values } = asJson(members);
    return JSON.stringify({ ...fields, _aws, ...values });
  };

  it.each([
    ['no fields', {}],
    [
      'fields sharing members (the same value) and one the metrics fill (undefined)',
      { operation: 'getPet', status: 200, keyId: undefined, requestId: 'r"1' },
    ],
    ['nested and escaped fields', { query: { status: ['so"ld', 'x\ny'] }, n: 0, commit: 'abc' }],
  ])('%s: as JSON.stringify of the merged object', (_, fields) => {
    const members = emfMembers(records(), on)!;
    const expected = spread(fields, members);
    expect(withEmfMembers({ ...fields }, members)).toBe(expected);
  });

  it('the same metrics in another namespace, or another sequence, get their own directives', () => {
    const first = asJson(emfMembers(records(), on))._aws.CloudWatchMetrics;
    const elsewhere = asJson(emfMembers(records(), { ...on, namespace: 'PetStore/other' }))._aws.CloudWatchMetrics;
    expect(elsewhere.map((d: { Namespace: string }) => d.Namespace)).toEqual(Array(3).fill('PetStore/other'));
    expect(asJson(emfMembers(records(), on))._aws.CloudWatchMetrics).toEqual(first);
    const fewer = asJson(emfMembers(records().slice(1), on))._aws.CloudWatchMetrics;
    expect(fewer).toEqual(first.slice(1));
  });
});

describe('held to Powertools Metrics', () => {
  afterEach(() => vi.restoreAllMocks());

  /** What Powertools Metrics writes for `record` alone: a single-metric line, as the functions wrote before. */
  const powertoolsLine = (record: MetricRecord) => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const { name, unit } = METRICS[record.key];
    const single = new Metrics({ namespace: on.namespace, serviceName: on.service }).singleMetric();
    single.addDimensions(record.dimensions as Record<string, string>);
    single.addMetric(name, unit, record.value);
    vi.restoreAllMocks();
    return JSON.parse(written.join(''));
  };

  it.each<MetricRecord>([
    metric('requests', { operation: 'getPet', statusClass: '4xx' }),
    metric('latency', { operation: 'listPets' }, 3.25),
    metric('validationFailures', { operation: 'createPet' }),
    metric('dynamodbFaults', { operation: 'getPet' }),
    metric('deprecatedCalls', { operation: 'listPets', keyId: 'key_b' }),
    metric('authFailures', { reason: 'revoked' }),
    metric('coldStart', { function_name: 'petstore-test-authorizer' }),
  ])('$key: the same directive, dimensions and value as its Powertools line', (record) => {
    const expected = powertoolsLine(record);
    const ours = asJson(emfMembers([record], on, true));
    expect(ours._aws.CloudWatchMetrics).toEqual(expected._aws.CloudWatchMetrics);
    const { _aws: _, ...values } = expected;
    expect(ours).toMatchObject(values);
  });
});

describe('a log level that hides the summary line', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
    vi.restoreAllMocks();
  });

  it('still writes the metrics, on a line of their own', async () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'WARN');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'PetStore/test');
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'petstore');
    vi.resetModules();
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const telemetry = await import('../../shared/observability/telemetry.ts');
    telemetry.logRequestSummary(
      telemetry.startInvocation(lambdaContext('getPet'), undefined),
      {
        operation: 'getPet',
        status: 200,
        latencyMs: 1.5,
        keyId: 'key_a',
        requestId: 'req-1',
        executedVersion: '$LATEST',
        commit: 'abc',
        cursorSent: false,
      },
      [telemetry.metric('latency', { operation: 'getPet' }, 1.5)],
    );
    vi.restoreAllMocks();
    const lines = written.join('').trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ service: 'petstore', operation: 'getPet', Latency: 1.5 });
    expect(line.message).toBeUndefined();
    expect(line._aws.CloudWatchMetrics[0].Namespace).toBe('PetStore/test');
  });
});
