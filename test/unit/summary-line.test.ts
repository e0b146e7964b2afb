// The summary line is written as text around its fields' JSON (summary-line.ts): it must be the
// very line that serializing one object with Powertools' members, in Powertools' order, then the
// fields, would give (JSON.stringify: an undefined member left out, strings escaped), whatever the
// message, trace header, tenant or fields hold.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { summaryLine } from '../../shared/observability/summary-line.ts';
import { lambdaContext } from '../support/in-process.ts';

afterEach(() => vi.unstubAllEnvs());

const expected = (
  message: string,
  context: ReturnType<typeof lambdaContext>,
  coldStart: boolean,
  fields: object,
  trace?: string,
) =>
  JSON.stringify({
    level: 'INFO',
    message,
    timestamp: 'T',
    service: process.env.POWERTOOLS_SERVICE_NAME || 'service_undefined',
    cold_start: coldStart,
    function_arn: context.invokedFunctionArn,
    function_memory_size: context.memoryLimitInMB,
    function_name: context.functionName,
    function_request_id: context.awsRequestId,
    sampling_rate: 0,
    xray_trace_id: trace,
    tenant_id: context.tenantId,
    ...fields,
  });

/** The line with its timestamp replaced, after checking it is ISO 8601 UTC. */
const withoutTime = (line: string) => {
  const parsed = JSON.parse(line) as { timestamp: string };
  expect(parsed.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  return line.replace(`"timestamp":"${parsed.timestamp}"`, '"timestamp":"T"');
};

describe('the summary line', () => {
  it.each([
    ['plain', 'request', {}, false],
    ['fields with quotes and nesting', 'a "quoted"\nmessage', { query: { status: 'so"ld' }, n: 1, u: undefined }, true],
  ])('%s: as one serialized object', (_, message, fields, coldStart) => {
    const context = lambdaContext('getPet');
    const line = summaryLine(message, { context, coldStart, startedAt: 0, traceId: undefined }, fields);
    expect(withoutTime(line)).toBe(expected(message, context, coldStart, fields));
  });

  it('names the trace and the tenant when there are', () => {
    const context = { ...lambdaContext('getPet'), tenantId: 'tenant-1' };
    const traceId = '1-5759e988-bd862e3fe1be46a994272793';
    const line = summaryLine('request', { context, coldStart: false, startedAt: 0, traceId }, { a: 1 });
    expect(withoutTime(line)).toBe(
      expected('request', context, false, { a: 1 }, '1-5759e988-bd862e3fe1be46a994272793'),
    );
  });
});
