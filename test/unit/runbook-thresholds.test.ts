// Each alarm's section in docs/runbook.md states when it fires, on each stage, next to what it
// means: and what it states is what the synthesized stacks deploy (infra/stages.ts through the
// monitoring construct), read from the templates, so that the page cannot drift from the settings.
import { describe, expect, it } from 'vitest';
import { ALARM_KINDS } from '../../infra/monitoring/alarms.ts';
import { RELEASE_ALARM_KINDS } from '../../infra/monitoring/release-alarms.ts';
import { DEPLOYED_STAGES, stackName } from '../../infra/stages.ts';
import { synthesized } from '../cdk/support/synth.ts';
import { resourcesOfType } from '../cdk/support/template.ts';
import { section } from '../support/runbook.ts';

/** CloudWatch's comparison operators, as the page writes them. */
const SYMBOL: Record<string, string> = {
  GreaterThanThreshold: '>',
  GreaterThanOrEqualToThreshold: '≥',
  LessThanThreshold: '<',
  LessThanOrEqualToThreshold: '≤',
};

/** The alarms whose section states their threshold: the stage's, the release's, the smoke canary's. */
const KINDS = [...Object.keys(ALARM_KINDS), ...Object.keys(RELEASE_ALARM_KINDS), 'SmokeCanary'];

type Props = Record<string, unknown> & { Metrics?: Array<{ MetricStat?: { Period: number } }> };

/** How an alarm fires, in the page's words: `> 5` in 3 of 5 periods of 1 min. */
const firesAt = (p: Props): string => {
  const period = (p.Period as number | undefined) ?? p.Metrics!.find((m) => m.MetricStat)!.MetricStat!.Period;
  const evaluation = p.EvaluationPeriods as number;
  const datapoints = (p.DatapointsToAlarm as number | undefined) ?? evaluation;
  return `\`${SYMBOL[p.ComparisonOperator as string]} ${p.Threshold}\` in ${datapoints} of ${evaluation} periods of ${period / 60} min`;
};

describe('docs/runbook.md: alarm thresholds', () => {
  it.each(KINDS)(
    '%s: its section states when it fires, as each stage deploys it',
    async (kind) => {
      const app = await synthesized();
      const stated = DEPLOYED_STAGES.map((stage) => {
        const prefix = `${stackName(stage)}-${kind}`;
        const alarms = resourcesOfType(app.template(stage), 'AWS::CloudWatch::Alarm')
          .map(([, alarm]) => alarm.Properties as Props)
          .filter((p) => p.AlarmName === prefix || String(p.AlarmName).startsWith(`${prefix}-`));
        expect(alarms.length, prefix).toBeGreaterThan(0);
        // One threshold for every subject of a kind (each operation's, each table's): one line says it.
        const phrases = [...new Set(alarms.map(firesAt))];
        expect(phrases, prefix).toHaveLength(1);
        return `${stage} ${phrases[0]}`;
      });
      const line = `**Fires at:** ${stated.join('; ')}.`;
      expect(section(kind), `"### ${kind}" should state:\n${line}`).toContain(line);
    },
    300_000,
  );
});
