// CloudWatch metrics of what the functions emit, named and dimensioned from the same
// definitions the functions record them with (shared/observability/metric-names.ts).
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import {
  AUTHORIZER_ERRORS_METRIC,
  assertDimensions,
  METRICS,
  type MetricDimension,
  type MetricKey,
  metricsNamespace,
  SERVICE_NAME,
} from '../../shared/observability/metric-names.ts';

/** A function's EMF metric: exactly its declared dimensions, plus `service`, as Powertools names it. */
export const emfMetric = (
  stage: string,
  key: MetricKey,
  dimensions: Partial<Record<MetricDimension, string>>,
  options: MetricOptions = {},
): Metric => {
  const spec = METRICS[key];
  assertDimensions(key, dimensions);
  return new Metric({
    namespace: metricsNamespace(stage),
    metricName: spec.name,
    dimensionsMap: { service: SERVICE_NAME, ...dimensions },
    ...options,
  });
};

/** Counted by a metric filter on the access log (see AUTHORIZER_ERRORS_METRIC). */
export const authorizerErrorsMetric = (stage: string, options: MetricOptions = {}): Metric =>
  new Metric({
    namespace: metricsNamespace(stage),
    metricName: AUTHORIZER_ERRORS_METRIC,
    statistic: 'Sum',
    ...options,
  });
