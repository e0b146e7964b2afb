// A small CloudWatch Logs Insights, enough to run the saved queries (infra/monitoring/queries.ts)
// over the local stage's output as CloudWatch would file it: the commands `fields`, `filter`,
// `stats`, `sort`, `limit`; comparisons, `and`/`or`/`not`, `like /regex/`, `in [...]`,
// `ispresent()`, `coalesce()`; the aggregates count, count_distinct, min, max, sum, avg,
// earliest, latest. What it does not know it refuses (throws), so that a query the drill cannot
// run fails loudly instead of answering nothing. Semantics as AWS documents them:
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_QuerySyntax.html
import { fieldOf, type LogLine } from './observability.ts';

/** A log event: its JSON fields, and `@timestamp` (epoch ms) and `@log` as CloudWatch adds them. */
export type LogEvent = LogLine & { '@timestamp': number; '@log': string };
type Value = unknown;

const TOKEN =
  /\s*(\/(?:[^/\\]|\\.)+\/|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?![\w.])|[A-Za-z_@][\w.@]*|>=|<=|!=|[=<>(),*[\]])/y;

const tokenize = (text: string): string[] => {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(text);
    if (!match) throw new Error(`cannot read "${text.slice(TOKEN.lastIndex)}"`);
    tokens.push(match[1]!);
  }
  return tokens;
};

type Expr = (event: LogEvent) => Value;

const fieldValue = (event: LogEvent, name: string): Value => (name in event ? event[name] : fieldOf(event, name));

/** Recursive descent over one expression's tokens. */
const parser = (tokens: string[]) => {
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (expected !== undefined && token?.toLowerCase() !== expected)
      throw new Error(`expected ${expected}, got ${token}`);
    if (token === undefined) throw new Error('unexpected end of query');
    return token;
  };
  const compare = (a: Value, b: Value): number =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));

  const primary = (): Expr => {
    const token = take();
    if (token === '(') {
      const inner = or();
      take(')');
      return inner;
    }
    if (token.startsWith('"')) {
      const text = JSON.parse(token) as string;
      return () => text;
    }
    if (/^-?\d/.test(token)) return () => Number(token);
    if (peek() === '(') {
      take('(');
      const args: Expr[] = [];
      while (peek() !== ')') {
        if (peek() === '*') {
          take();
          args.push(() => 1);
        } else args.push(or());
        if (peek() === ',') take(',');
      }
      take(')');
      const fn = token.toLowerCase();
      if (fn === 'ispresent') return (e) => args[0]!(e) !== undefined && args[0]!(e) !== null;
      if (fn === 'coalesce')
        return (e) => args.map((arg) => arg(e)).find((v) => v !== undefined && v !== null && v !== '-');
      throw new Error(`unknown function ${token}`);
    }
    return (event) => fieldValue(event, token);
  };

  const comparison = (): Expr => {
    if (peek()?.toLowerCase() === 'not') {
      take();
      const inner = comparison();
      return (e) => !inner(e);
    }
    const left = primary();
    const op = peek()?.toLowerCase();
    if (op === 'like') {
      take();
      const literal = take();
      const regex = literal.startsWith('/')
        ? new RegExp(literal.slice(1, -1))
        : new RegExp((JSON.parse(literal) as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      return (e) => {
        const v = left(e);
        return v !== undefined && v !== null && regex.test(String(v));
      };
    }
    if (op === 'in') {
      take();
      take('[');
      const options: Expr[] = [];
      while (peek() !== ']') {
        options.push(primary());
        if (peek() === ',') take(',');
      }
      take(']');
      return (e) => options.some((o) => o(e) === left(e));
    }
    if (op && ['=', '!=', '<', '>', '<=', '>='].includes(op)) {
      take();
      const right = primary();
      return (e) => {
        const [a, b] = [left(e), right(e)];
        if (a === undefined || a === null) return op === '!=';
        const c = compare(a, b);
        return { '=': c === 0, '!=': c !== 0, '<': c < 0, '>': c > 0, '<=': c <= 0, '>=': c >= 0 }[op];
      };
    }
    return left;
  };
  const and = (): Expr => {
    let left = comparison();
    while (peek()?.toLowerCase() === 'and') {
      take();
      const [l, r] = [left, comparison()];
      left = (e) => Boolean(l(e)) && Boolean(r(e));
    }
    return left;
  };
  const or = (): Expr => {
    let left = and();
    while (peek()?.toLowerCase() === 'or') {
      take();
      const [l, r] = [left, and()];
      left = (e) => Boolean(l(e)) || Boolean(r(e));
    }
    return left;
  };
  return { or, primary, peek, take, ahead: (n: number) => tokens[at + n], done: () => at >= tokens.length };
};

/** Comma-separated `expr [as name]` items, as `fields` and `stats … by` take them. */
const items = (tokens: string[]) => {
  const p = parser(tokens);
  const list: Array<{ expr: Expr; name: string; call?: { fn: string; arg: Expr } }> = [];
  while (!p.done()) {
    const start = p.peek()!;
    const isCall = p.ahead(1) === '(';
    let call: { fn: string; arg: Expr } | undefined;
    let expr: Expr;
    const aggregate = ['count', 'count_distinct', 'min', 'max', 'sum', 'avg', 'earliest', 'latest'];
    if (isCall && aggregate.includes(start.toLowerCase())) {
      p.take();
      p.take('(');
      const star = p.peek() === '*';
      if (star) p.take();
      const arg: Expr = star ? () => 1 : p.or();
      p.take(')');
      call = { fn: start.toLowerCase(), arg };
      expr = arg;
    } else expr = p.or();
    let name = start;
    if (p.peek()?.toLowerCase() === 'as') {
      p.take();
      name = p.take();
    }
    list.push({ expr, name, ...(call && { call }) });
    if (!p.done()) p.take(',');
  }
  return list;
};

const aggregate = (fn: string, values: Value[], events: LogEvent[]): Value => {
  const present = values.filter((v) => v !== undefined && v !== null);
  const numbers = present.map(Number);
  const byTime = (pick: (a: number, b: number) => boolean) => {
    let best: number | undefined;
    events.forEach((e, i) => {
      if (values[i] !== undefined && (best === undefined || pick(e['@timestamp'], events[best]!['@timestamp'])))
        best = i;
    });
    return best === undefined ? undefined : values[best];
  };
  switch (fn) {
    case 'count':
      return present.length;
    case 'count_distinct':
      return new Set(present.map((v) => JSON.stringify(v))).size;
    case 'min':
      return present.length ? Math.min(...numbers) : undefined;
    case 'max':
      return present.length ? Math.max(...numbers) : undefined;
    case 'sum':
      return numbers.reduce((a, b) => a + b, 0);
    case 'avg':
      return numbers.length ? numbers.reduce((a, b) => a + b, 0) / numbers.length : undefined;
    case 'earliest':
      return byTime((a, b) => a < b);
    case 'latest':
      return byTime((a, b) => a > b);
    default:
      throw new Error(`unknown aggregate ${fn}`);
  }
};

/** Runs `query` over `events`, as Logs Insights would over the query's log groups. */
export const runQuery = (query: string, events: readonly LogEvent[]): LogLine[] => {
  let rows: LogLine[] = [...events];
  for (const command of query.split(/\n\|\s*|\s+\|\s+/)) {
    const [, verb, rest = ''] = /^\s*(\w+)\s*([\s\S]*)$/.exec(command) ?? [];
    const tokens = tokenize(rest);
    switch (verb?.toLowerCase()) {
      case 'fields': {
        const list = items(tokens);
        rows = rows.map((row) => ({
          ...row,
          ...Object.fromEntries(list.map(({ expr, name }) => [name, expr(row as LogEvent)])),
        }));
        break;
      }
      case 'filter': {
        const test = parser(tokens).or();
        rows = rows.filter((row) => Boolean(test(row as LogEvent)));
        break;
      }
      case 'stats': {
        const by = tokens.findIndex((t) => t.toLowerCase() === 'by');
        const aggregates = items(by === -1 ? tokens : tokens.slice(0, by));
        const keys = by === -1 ? [] : items(tokens.slice(by + 1));
        const groups = new Map<string, LogEvent[]>();
        for (const row of rows as LogEvent[]) {
          const key = JSON.stringify(keys.map(({ expr }) => expr(row) ?? null));
          groups.set(key, [...(groups.get(key) ?? []), row]);
        }
        rows = [...groups.entries()].map(([key, members]) => ({
          ...Object.fromEntries(keys.map(({ name }, i) => [name, (JSON.parse(key) as Value[])[i]])),
          ...Object.fromEntries(
            aggregates.map(({ call, name }) => {
              if (!call) throw new Error(`stats needs an aggregate, got ${name}`);
              return [name, aggregate(call.fn, members.map(call.arg), members)];
            }),
          ),
        }));
        break;
      }
      case 'sort': {
        const [field, direction = 'asc'] = tokens;
        const sign = direction.toLowerCase() === 'desc' ? -1 : 1;
        rows = [...rows].sort((a, b) => {
          const [x, y] = [fieldValue(a as LogEvent, field!), fieldValue(b as LogEvent, field!)];
          return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
        });
        break;
      }
      case 'limit':
        rows = rows.slice(0, Number(tokens[0]));
        break;
      default:
        throw new Error(`unknown command "${command.trim()}"`);
    }
  }
  return rows;
};
