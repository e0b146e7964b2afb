// Every metric-math expression of both stage templates (alarms and dashboard), held to the
// functions and argument kinds of CloudWatch's "Using metric math" page, section "Metric math
// syntax and functions":
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html#metric-math-syntax
// The page types each argument as a scalar (S), a time series (TS) or an array of time series
// (TS[]); PutMetricAlarm accepts only what that table documents, so a form outside it (MAX of
// an array holding a number) may fail the stack's creation. SEARCH is documented on its own page,
// "Using search expressions in graphs" (…/monitoring/using-search-expressions.html).
import { beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYED_STAGES } from '../../infra/stages.ts';
import { type SynthesizedApp, synthesized } from './support/synth.ts';
import { render, resourcesOfType } from './support/template.ts';

type Kind = 'S' | 'TS' | 'TS[]' | 'string';

/** The page's functions used here, each with its documented forms: argument kinds → result kind. */
const DOCUMENTED: Readonly<Record<string, readonly { args: readonly Kind[]; result: Kind }[]>> = {
  // "FILL(m, value)": value is a number, a time series, REPEAT or LINEAR; m a TS or TS[].
  FILL: [
    { args: ['TS', 'S'], result: 'TS' },
    { args: ['TS', 'TS'], result: 'TS' },
    { args: ['TS[]', 'S'], result: 'TS[]' },
  ],
  // "IF(condition, trueValue, falseValue)": condition a TS; each value a TS or a scalar.
  IF: [
    { args: ['TS', 'TS', 'TS'], result: 'TS' },
    { args: ['TS', 'TS', 'S'], result: 'TS' },
    { args: ['TS', 'S', 'TS'], result: 'TS' },
    { args: ['TS', 'S', 'S'], result: 'TS' },
  ],
  // MAX, MIN, SUM, AVG: of a TS[] a TS (point by point); of a TS a scalar (over the series).
  ...Object.fromEntries(
    ['MAX', 'MIN', 'SUM', 'AVG'].map((name) => [
      name,
      [
        { args: ['TS[]'], result: 'TS' },
        { args: ['TS'], result: 'S' },
      ],
    ]),
  ),
  // "TIME_SERIES(value)": a time series with that value at every point.
  TIME_SERIES: [{ args: ['S'], result: 'TS' }],
  // SEARCH('{namespace,dims} terms', 'stat', period): an array of time series.
  SEARCH: [{ args: ['string', 'string', 'S'], result: 'TS[]' }],
};

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_]\w*)|('(?:[^'\\]|\\.)*')|(>=|<=|==|!=|&&|\|\||[-+*/^()[\],<>!]))/y;

/** Parses an expression and returns its kind, or throws naming the form the page does not document. */
const kindOf = (expression: string): Kind => {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.trimEnd().length) {
    const match = TOKEN.exec(expression);
    if (!match) throw new Error(`cannot read "${expression.slice(TOKEN.lastIndex)}"`);
    tokens.push(match[1] ?? match[2] ?? match[3] ?? (match[4] as string));
  }
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`expected ${expected ?? 'more'} in "${expression}"`);
    return token;
  };
  // Arithmetic and comparison between a TS and a S (or two TS) give a TS; two scalars a scalar.
  const combine = (left: Kind, right: Kind, operator: string): Kind => {
    for (const side of [left, right])
      if (side !== 'S' && side !== 'TS') throw new Error(`"${operator}" applied to ${side} in "${expression}"`);
    return left === 'S' && right === 'S' ? 'S' : 'TS';
  };
  const LEVELS = [['||'], ['&&'], ['>=', '<=', '==', '!=', '<', '>'], ['+', '-'], ['*', '/'], ['^']];
  const binary = (level: number): Kind => {
    if (level === LEVELS.length) return unary();
    let left = binary(level + 1);
    while (LEVELS[level]?.includes(peek() ?? '')) {
      const operator = take();
      left = combine(left, binary(level + 1), operator);
    }
    return left;
  };
  const unary = (): Kind => {
    if (peek() === '-' || peek() === '!') {
      take();
      return combine('S', unary(), '-');
    }
    return primary();
  };
  const primary = (): Kind => {
    const token = take();
    if (/^\d/.test(token)) return 'S';
    if (token.startsWith("'")) return 'string';
    if (token === '(') {
      const inner = binary(0);
      take(')');
      return inner;
    }
    if (token === '[') {
      const elements: Kind[] = [binary(0)];
      while (peek() === ',') {
        take(',');
        elements.push(binary(0));
      }
      take(']');
      // The page's arrays are of time series: [m1, m2], METRICS(), SEARCH(…).
      if (elements.some((kind) => kind !== 'TS'))
        throw new Error(`an array of [${elements.join(', ')}] in "${expression}": the page's arrays hold time series`);
      return 'TS[]';
    }
    if (/^[A-Za-z_]/.test(token) && peek() === '(') {
      take('(');
      const args: Kind[] = [];
      if (peek() !== ')') {
        args.push(binary(0));
        while (peek() === ',') {
          take(',');
          args.push(binary(0));
        }
      }
      take(')');
      const form = DOCUMENTED[token]?.find(
        (f) => f.args.length === args.length && f.args.every((k, i) => k === args[i]),
      );
      if (!form) throw new Error(`${token}(${args.join(', ')}) is not a documented form, in "${expression}"`);
      return form.result;
    }
    // A metric or expression id of the same query: a time series.
    if (/^[a-z]\w*$/.test(token)) return 'TS';
    throw new Error(`unexpected "${token}" in "${expression}"`);
  };
  const kind = binary(0);
  if (at !== tokens.length) throw new Error(`unexpected "${tokens[at]}" in "${expression}"`);
  return kind;
};

/** Every `expression` in a dashboard body (rendered to JSON text) and every alarm's Metrics[].Expression. */
const expressionsOf = (app: SynthesizedApp): { where: string; expression: string }[] =>
  DEPLOYED_STAGES.flatMap((stage) => {
    const template = app.template(stage);
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').flatMap(([id, { Properties }]) =>
      ((Properties?.Metrics ?? []) as { Expression?: unknown }[])
        .filter((query) => query.Expression !== undefined)
        .map((query) => ({ where: `${stage} ${id}`, expression: render(query.Expression) })),
    );
    const dashboards = resourcesOfType(template, 'AWS::CloudWatch::Dashboard').flatMap(([id, { Properties }]) => {
      const body = JSON.parse(render(Properties?.DashboardBody)) as {
        widgets: { properties?: { metrics?: unknown[][] } }[];
      };
      return body.widgets.flatMap((widget) =>
        (widget.properties?.metrics ?? []).flatMap((line) =>
          line
            .filter(
              (part): part is { expression: string } =>
                typeof part === 'object' && part !== null && 'expression' in part,
            )
            .map(({ expression }) => ({ where: `${stage} ${id}`, expression })),
        ),
      );
    });
    return [...alarms, ...dashboards];
  });

let app: SynthesizedApp;
beforeAll(async () => {
  app = await synthesized();
}, 300_000);

describe('metric math', () => {
  it('refuses the forms the page does not document', () => {
    expect(() => kindOf('MAX([FILL(a - b, 0), 1])')).toThrow(/array of \[TS, S\]/);
    expect(() => kindOf('MAXIMUM([a, b])')).toThrow(/not a documented form/);
    expect(() => kindOf('TIME_SERIES(a)')).toThrow(/TIME_SERIES\(TS\)/);
    expect(kindOf('MAX([FILL(a - b, 0), TIME_SERIES(1)])')).toBe('TS');
    expect(kindOf('IF(n >= 20, 100 * FILL(r, 0) / n, 0)')).toBe('TS');
  });

  it('every expression of both templates uses only documented functions and argument kinds', () => {
    const found = expressionsOf(app);
    // Alarms and the dashboard both carry some: an empty list would prove nothing.
    expect(found.filter(({ where }) => where.includes('Dashboard')).length).toBeGreaterThan(0);
    expect(found.length).toBeGreaterThan(DEPLOYED_STAGES.length * 2);
    for (const { where, expression } of found) {
      expect(() => kindOf(expression), `${where}: ${expression}`).not.toThrow();
      // An alarm or a graph line is one time series, or (SEARCH) several.
      expect(['TS', 'TS[]'], `${where}: ${expression}`).toContain(kindOf(expression));
    }
  });
});
