// docs/runbook.md answers every alarm: what it means, what to open first, how to
// mitigate; and everything it names (saved queries, sections) exists.
import { describe, expect, it } from 'vitest';
import { ALARM_KINDS, type AlarmKind } from '../../infra/monitoring/alarms.ts';
import { savedQueries } from '../../infra/monitoring/queries.ts';
import { RELEASE_ALARM_KINDS } from '../../infra/monitoring/release-alarms.ts';
import { DEPLOYED_STAGES, stackName } from '../../infra/stages.ts';
import { FUNCTION_NAMES, routes } from '../../shared/api/routes.ts';
import { tables } from '../../shared/dynamodb/tables.ts';
import { synthesized } from '../cdk/support/synth.ts';
import { resourcesOfType } from '../cdk/support/template.ts';
import { NAMES_A_WIDGET, openFirst, runbook, section, undocumentedAlarm } from '../support/runbook.ts';

const queryNames = savedQueries.map((query) => query.name);
/** A saved query is named in bold code: **`errors`**. */
const queriesNamedIn = (text: string) => [...text.matchAll(/\*\*`([\w-]+)`\*\*/g)].map((match) => match[1]!);

describe('docs/runbook.md', () => {
  it.each([...(Object.keys(ALARM_KINDS) as AlarmKind[]), ...Object.keys(RELEASE_ALARM_KINDS)])(
    '%s: what it means, what to open first, how to mitigate',
    (kind) => {
      const text = section(kind);
      expect(text, `no "### ${kind}" section`).toBeDefined();
      for (const part of ['**Means:**', '**Open first:**', '**Mitigate:**']) expect(text).toContain(part);
      const open = openFirst(text!);
      expect(queriesNamedIn(open).length, 'names a saved query to open').toBeGreaterThan(0);
      expect(open, 'names a dashboard widget to open').toMatch(NAMES_A_WIDGET);
    },
  );

  it('documents every alarm the stack makes: its kind has a section, which names it by its rule', async () => {
    const app = await synthesized();
    const subjects = {
      operations: routes.map((r) => r.operationId),
      functions: FUNCTION_NAMES,
      tables: tables.map((t) => t.name),
    };
    for (const stage of DEPLOYED_STAGES) {
      const names = resourcesOfType(app.template(stage), 'AWS::CloudWatch::Alarm').map(
        ([, alarm]) => alarm.Properties!.AlarmName as string,
      );
      expect(names.length).toBeGreaterThan(FUNCTION_NAMES.length);
      expect(names.flatMap((name) => undocumentedAlarm(name, stackName(stage), subjects) ?? [])).toEqual([]);
    }
  }, 300_000);

  it('names only saved queries that exist, and every one of them', () => {
    const named = new Set(queriesNamedIn(runbook));
    for (const name of named) expect(queryNames).toContain(name);
    expect([...named].sort()).toEqual([...queryNames].sort());
  });

  it('links only to sections it has', () => {
    const anchors = new Set(
      [...runbook.matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\w\s-]/g, '')
          .replace(/\s+/g, '-'),
      ),
    );
    for (const [, anchor] of runbook.matchAll(/\]\(#([^)]+)\)/g)) expect(anchors).toContain(anchor);
  });

  it('explains a release: its checks, the alarms that watch it and why in time, a rollback', () => {
    const releases = runbook.slice(runbook.indexOf('\n## Releases\n'), runbook.indexOf('\n## Alarms\n'));
    for (const kind of Object.keys(RELEASE_ALARM_KINDS)) expect(releases).toContain(kind);
    for (const part of ['pre-traffic hook', 'Why the release alarms fire in time', 'A rollback, as on-call sees it'])
      expect(releases).toContain(part);
  });

  it('covers the four mitigations the on-call needs', () => {
    for (const title of ['Revoke a key', 'Adjust throttling', 'Roll back', 'Restore a table from a point in time']) {
      expect(section(title), title).toBeDefined();
    }
  });
});
