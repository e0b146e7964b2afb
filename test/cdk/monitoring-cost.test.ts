// docs/capacity.md's fixed cost of a stage's own alarms and dashboard, counted in each stage's
// synthesized template: what CloudWatch bills, at its list prices (https://aws.amazon.com/cloudwatch/pricing/:
// a standard-resolution alarm $0.10 a month per metric it reads, each metric of a metric-math alarm
// counted; a dashboard $3.00 a month past the account's first three). Dropping an alarm, or adding
// one, without the doc's table turns this red.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_ALARM_KINDS } from '../../infra/monitoring/release-alarms.ts';
import { DEPLOYED_STAGES, stageSettings } from '../../infra/stages.ts';
import { monitoringCostPerMonth, watchCostPerMonth } from '../../tools/capacity.ts';
import { type CfnTemplate, type SynthesizedApp, synthesized } from './support/synth.ts';
import { resourcesOfType } from './support/template.ts';

const capacity = readFileSync(resolve(import.meta.dirname, '../../docs/capacity.md'), 'utf8');
const section = capacity.slice(capacity.indexOf("## The stage's own alarms and dashboard"));
/** A row of the section's table: its cells after the item's, as numbers (empty cells left out). */
const row = (item: string): number[] => {
  const line = section.split('\n').find((l) => l.startsWith(`| ${item} |`));
  expect(line, item).toBeDefined();
  return line!
    .split('|')
    .slice(2, -1)
    .map((cell) => cell.replace(/\*/g, '').trim())
    .filter(Boolean)
    .map(Number);
};

/** The alarms of a template by who made them: the release alarms, the watch from outside, the stage's. */
const alarmsOf = (template: CfnTemplate) => {
  const groups = {
    stage: { alarms: 0, metrics: 0 },
    release: { alarms: 0, metrics: 0 },
    watch: { alarms: 0, metrics: 0 },
  };
  for (const [, alarm] of resourcesOfType(template, 'AWS::CloudWatch::Alarm')) {
    const p = alarm.Properties!;
    const name = JSON.stringify(p.AlarmName);
    const group = Object.keys(RELEASE_ALARM_KINDS).some((kind) => name.includes(`-${kind}-`))
      ? 'release'
      : /-SmokeCanary|-Slo/.test(name)
        ? 'watch'
        : 'stage';
    groups[group].alarms += 1;
    groups[group].metrics += p.MetricName
      ? 1
      : (p.Metrics as { MetricStat?: unknown }[]).filter((m) => m.MetricStat).length;
  }
  return groups;
};

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe.each(DEPLOYED_STAGES)('stack %s', (stage) => {
  it("bills the alarms and the dashboard docs/capacity.md's table says, at CloudWatch's prices", () => {
    const template = app.template(stage);
    const { stage: own, release, watch } = alarmsOf(template);
    const dashboards = resourcesOfType(template, 'AWS::CloudWatch::Dashboard').length;
    for (const [item, counted] of [
      ["the stage's alarms", own],
      ['the release alarms', release],
    ] as const) {
      const [alarms, metrics, usd] = row(item);
      expect({ alarms, metrics }, item).toEqual(counted);
      expect(usd, item).toBeCloseTo(counted.metrics * 0.1, 2);
    }
    expect(row("the dashboard (past the account's first three, which are free)")).toEqual([dashboards * 3]);
    const total = monitoringCostPerMonth({ alarmMetrics: own.metrics + release.metrics, dashboards });
    expect(total).toBeCloseTo((own.metrics + release.metrics) * 0.1 + dashboards * 3);
    expect(row('**total**')).toEqual([Number(total.toFixed(2))]);
    // The watch from outside, priced by the section before: its alarms are the rest of the template's.
    const outside = watchCostPerMonth(stageSettings[stage]);
    expect(watch.metrics * 0.1).toBeCloseTo(
      outside.items['canary alarm'] + outside.items['SLO window alarms (2 per alert, 2 metrics each)'],
    );
    expect(section).toContain(`fixed monthly cost is **${(total + outside.total).toFixed(2)}** USD`);
  });
});
