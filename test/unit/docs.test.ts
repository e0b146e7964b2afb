// The figures the README and docs/api.md state by hand, held to the code they describe: the
// README's configuration table to the local server's Config (every variable, every default),
// and docs/api.md's error table and limits to the code that answers them (shared/api/errors.ts
// and the constants).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Config } from '../../infra/local/config.ts';
import { functionEnvironment } from '../../infra/local/function-environment.ts';
import { DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS } from '../../infra/stages.ts';
import { ERRORS, type ErrorShape } from '../../shared/api/errors.ts';
import { IDEMPOTENCY_WINDOW_SECONDS } from '../../shared/api/idempotency.ts';
import { route } from '../../shared/api/routes.ts';
import { LIMIT_MAX, NAME_MAX_LENGTH } from '../../shared/api/schemas.ts';
import { KEY_PATTERN } from '../../shared/domain/api-keys.ts';
import { MAX_BODY_BYTES } from '../../shared/lambda/middleware.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const api = readFileSync(resolve(ROOT, 'docs/api.md'), 'utf8');

/** The README's configuration table: variable → its Default cell, backquotes removed. */
const configurationTable = (): Map<string, string> => {
  const start = readme.indexOf('| Variable | Default | Meaning |');
  expect(start, 'README has the configuration table').toBeGreaterThan(0);
  const rows = readme.slice(start).split('\n').slice(2);
  const table = new Map<string, string>();
  for (const row of rows) {
    const cells = row.match(/^\| `([A-Z_]+)` \| (.+?) \|/);
    if (!cells) break;
    table.set(cells[1]!, cells[2]!.replaceAll('`', ''));
  }
  return table;
};

/** What the local stage reads from the environment besides Config: passed on to its functions. */
const FUNCTION_SETTINGS = ['POWERTOOLS_METRICS_DISABLED'];

describe('README, local configuration', () => {
  const table = configurationTable();
  const defaults = Config.parse({}) as Record<string, unknown>;

  test('lists every variable the local server reads, and no other', () => {
    expect([...table.keys()].sort()).toEqual([...Object.keys(Config.shape), ...FUNCTION_SETTINGS].sort());
  });

  test.each(Object.keys(Config.shape))("%s: the README's default is the server's", (name) => {
    const stated = table.get(name);
    if (defaults[name] === undefined) expect(stated).toMatch(/^\(.+\)$/);
    else expect(stated).toBe(String(defaults[name]));
  });

  test("POWERTOOLS_METRICS_DISABLED: the README's default is what the functions get", () => {
    const saved = process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    try {
      const env = functionEnvironment({
        dynamodbEndpoint: 'http://127.0.0.1:1',
        stage: 'local',
        logLevel: 'INFO',
        cursorSecret: 'x',
      });
      expect(table.get('POWERTOOLS_METRICS_DISABLED')).toBe(env.POWERTOOLS_METRICS_DISABLED);
    } finally {
      if (saved !== undefined) process.env.POWERTOOLS_METRICS_DISABLED = saved;
    }
  });
});

describe('docs/api.md states the limits the code enforces', () => {
  test.each(Object.entries(ERRORS))('the error table: %s, its status and headers', (code, shape: ErrorShape) => {
    const row = api.split('\n').find((line) => line.includes(`| \`${code}\` |`));
    expect(row, code).toBeDefined();
    expect(row).toMatch(new RegExp(`^\\| ${shape.status} \\|`));
    for (const name of Object.keys(shape.headers ?? {})) expect(row).toContain(name);
  });

  test('the body limit', () => {
    expect(MAX_BODY_BYTES % 1024).toBe(0);
    expect(api).toContain(`a request body over ${MAX_BODY_BYTES / 1024} KiB`);
  });

  test('how long a create is replayed', () => {
    expect(IDEMPOTENCY_WINDOW_SECONDS % 3600).toBe(0);
    expect(api).toContain(`for ${IDEMPOTENCY_WINDOW_SECONDS / 3600} hours after the first request succeeded`);
  });

  test("the authorizer cache's lifetime", () => {
    expect(DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS % 60).toBe(0);
    const minutes = `${DEPLOYED_AUTHORIZER_CACHE_TTL_SECONDS / 60} minutes`;
    expect(api).toContain(`for up to ${minutes}`);
    expect(api).toContain(`lifetime (${minutes})`);
  });

  test('listPets and createPet bounds, and the key format', () => {
    expect(api).toContain(`decimal integer from 1 to ${LIMIT_MAX}`);
    expect(api).toContain(`1 to ${NAME_MAX_LENGTH} characters after trimming`);
    expect(api).toContain(`1 to ${Number.MAX_SAFE_INTEGER}`);
    expect(KEY_PATTERN.source).toContain('{32,}');
    expect(api).toContain('at least 32 random base62 characters');
  });

  test("getPet's sunset", () => {
    const sunset = route('getPet').deprecation!.sunset;
    expect(api).toContain(`Sunset: ${sunset.toUTCString()}`);
    expect(api).toContain(
      `removed on ${sunset.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })}`,
    );
  });
});
