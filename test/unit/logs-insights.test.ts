// The drill's small Logs Insights (test/support/logs-insights.ts), held to answers worked out by
// hand from AWS's description of each command (CWL_QuerySyntax.html), so that the drill's
// findings are the queries' and not the runner's.
import { describe, expect, it } from 'vitest';
import { type LogEvent, runQuery } from '../support/logs-insights.ts';

const at = (minute: number) => Date.UTC(2030, 0, 1, 3, minute);
const events: LogEvent[] = [
  { '@timestamp': at(1), '@log': 'f', message: 'request', keyId: 'a', status: 200, query: { status: 'sold' } },
  { '@timestamp': at(2), '@log': 'f', message: 'request', keyId: 'b', status: 500, query: { status: 'sold' } },
  { '@timestamp': at(3), '@log': 'f', message: 'request', keyId: 'b', status: 500 },
  { '@timestamp': at(4), '@log': 'f', message: 'authorization', keyId: 'b', outcome: 'deny' },
  { '@timestamp': at(5), '@log': 'f', message: 'request', keyId: 'a', status: 404 },
];

describe('the drill’s Logs Insights', () => {
  it('filters, groups, aggregates, sorts and limits as Logs Insights does', () => {
    expect(
      runQuery(
        'filter message = "request" and status >= 400\n| stats count(*) as n, min(@timestamp) as first by keyId\n| sort n desc',
        events,
      ),
    ).toEqual([
      { keyId: 'b', n: 2, first: at(2) },
      { keyId: 'a', n: 1, first: at(5) },
    ]);
  });

  it('reads nested fields, like, ispresent, not, or, and limit', () => {
    expect(runQuery('filter query.status like /so/ | fields keyId', events).map((e) => e.keyId)).toEqual(['a', 'b']);
    expect(runQuery('filter not ispresent(status) or status = 404 | limit 1', events)).toHaveLength(1);
    expect(runQuery('filter outcome = "deny" | stats latest(keyId) as k, count(*) as n', events)).toEqual([
      { k: 'b', n: 1 },
    ]);
  });

  it('refuses what it does not know', () => {
    expect(() => runQuery('parse @message "*" as x', events)).toThrow(/unknown command/);
    expect(() => runQuery('stats pct(status, 99) as p', events)).toThrow();
  });
});
