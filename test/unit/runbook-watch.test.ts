// docs/runbook.md answers the smoke canary's alarm and the SLO alerts as it answers every
// other alarm (runbook.test.ts): what it means, what to open first, how to mitigate; and its
// table of objectives says what infra/stages.ts sets.
import { expect, it } from 'vitest';
import { BURN_RATE_ALERTS } from '../../infra/monitoring/slo.ts';
import { stageSettings } from '../../infra/stages.ts';
import { NAMES_A_WIDGET, openFirst, runbook, section } from '../support/runbook.ts';

it.each(['SmokeCanary', ...Object.keys(BURN_RATE_ALERTS)])(
  '%s: what it means, what to open first, how to mitigate',
  (kind) => {
    const text = section(kind);
    expect(text, `no "### ${kind}" section`).toBeDefined();
    for (const part of ['**Means:**', '**Open first:**', '**Mitigate:**']) expect(text).toContain(part);
    const open = openFirst(text!);
    expect(open, 'names a saved query').toMatch(/\*\*`[\w-]+`\*\*/);
    expect(open, 'names a dashboard widget').toMatch(NAMES_A_WIDGET);
  },
);

it('says each alert pages or tickets as its alarm does, with its burn rate', () => {
  for (const [alert, { severity, burnRate }] of Object.entries(BURN_RATE_ALERTS)) {
    expect(section(alert)).toContain(`**${severity}`);
    expect(section(alert)).toContain(`${burnRate}×`);
  }
});

it("states each stage's objectives as infra/stages.ts sets them", () => {
  const { staging, production } = stageSettings;
  const format = (n: number) => n.toLocaleString('en-US');
  expect(runbook).toContain(
    `| availability: requests not answered 5XX | ${staging.slo.availabilityPercent} % | ${production.slo.availabilityPercent} %`,
  );
  expect(runbook).toContain(
    `| latency: requests answered within the bound, at API Gateway | ${staging.slo.latencyPercent} % within ${format(staging.slo.latencyBoundMs)} ms | ${production.slo.latencyPercent} % within ${format(production.slo.latencyBoundMs)} ms |`,
  );
});
