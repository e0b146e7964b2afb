// A degraded step's metric when the log level hides its WARN line (POWERTOOLS_LOG_LEVEL=ERROR):
// still written, on a line of its own, as the summary line's metrics are
// (shared/observability/telemetry.ts). EMF as AWS specifies it
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
// `_aws` at the root, each dimension and metric named there a member of the root too.
import { afterAll, expect, test, vi } from 'vitest';

const saved = { ...process.env };
// Read at import by the Logger and the EMF settings: set before the module is loaded.
Object.assign(process.env, {
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  POWERTOOLS_SERVICE_NAME: 'petstore',
  POWERTOOLS_METRICS_NAMESPACE: 'PetStore/quiet',
  POWERTOOLS_METRICS_DISABLED: 'false',
});
const { logDegradedStep, metric } = await import('../../shared/observability/telemetry.ts');
afterAll(() => {
  process.env = saved;
  vi.restoreAllMocks();
});

test('at ERROR, no WARN line, and the metric alone on its own line, with its service', () => {
  const written: string[] = [];
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  logDegradedStep('status-index shard record not re-read; listed the shards known', new Error('boom'), [
    metric('shardRecordReadFailures', {}),
  ]);
  vi.restoreAllMocks();
  const lines = written.join('').split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain('boom');
  const line = JSON.parse(lines[0]!);
  expect(line._aws.CloudWatchMetrics).toEqual([
    {
      Namespace: 'PetStore/quiet',
      Dimensions: [['service']],
      Metrics: [{ Name: 'ShardRecordReadFailures', Unit: 'Count' }],
    },
  ]);
  expect(typeof line._aws.Timestamp).toBe('number');
  expect(line).toMatchObject({ service: 'petstore', ShardRecordReadFailures: 1 });
});
