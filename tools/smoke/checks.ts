// The smoke checks: every rule of docs/api.md a client relies on, checked from outside against a
// running stage: what every request must get (the 401s, the unknown path and method), each
// operation's generic checks (from its route entry and samples: shared/release-checks/generic.ts)
// and its own (operations.ts). Read-only mode sends nothing that could create an animal or a key
// (only requests the contract refuses before storing anything), so it is safe against production
// and is what the Synthetics canary runs.
import { type Route, route, routes } from '../../shared/api/routes.ts';
import {
  answerProblems,
  deprecationProblems,
  type GenericAnswer,
  type GenericCheck,
  genericChecks,
} from '../../shared/release-checks/generic.ts';
import { samplePath } from '../../shared/release-checks/samples.ts';
import { type Check, ownChecks, type State } from './operations.ts';
import { Broken, Probe, type ProbeOptions, type Reply, RULES, type Rule, ruleText, type Violation } from './probe.ts';

export interface SmokeOptions extends ProbeOptions {
  /** Create nothing: no animal, no key. Always so against production. */
  readonly readOnly: boolean;
}

export interface CheckResult {
  readonly name: string;
  readonly outcome: 'passed' | 'failed' | 'skipped';
  /** Why it was skipped, or what broke. */
  readonly note?: string;
  readonly violation?: Violation;
}

/** A key in the right format that the service never issued. */
const unknownKey = (): string => {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  return `pet_${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')}`;
};

const unauthorized =
  (rule: Rule, authorization: string | null): Check =>
  async (probe) => {
    const reply = await probe.send('/pets', { authorization });
    probe.expectError(reply, rule, 401, 'UNAUTHORIZED');
    const challenge = reply.headers.get('www-authenticate') ?? '';
    probe.expect(reply, rule, /^bearer\b/i.test(challenge), `WWW-Authenticate is "${challenge}"`);
  };

/** What every request gets, whatever the operation. */
const commonChecks: (readonly [string, Check])[] = [
  ['401 without a key', unauthorized('missingKey', null)],
  ['401 with a malformed Authorization header', unauthorized('malformedKey', 'Basic cGV0OnN0b3Jl')],
  ['401 with an unknown key', unauthorized('unknownKey', `Bearer ${unknownKey()}`)],
  [
    '404 for an unknown path',
    async (probe) => {
      probe.expectError(await probe.send('/no-such-resource'), 'unknownPath', 404, 'NOT_FOUND');
    },
  ],
  [
    '404 for an unknown method',
    async (probe) => {
      probe.expectError(await probe.send('/pets', { method: 'DELETE' }), 'unknownMethod', 404, 'NOT_FOUND');
    },
  ],
];

const answerOf = (reply: Reply): GenericAnswer => ({
  ...reply,
  header: (name) => reply.headers.get(name) ?? undefined,
});

const sendSample = (probe: Probe, r: Route, check: GenericCheck): Promise<Reply> => {
  const body = check.sample.body === undefined ? undefined : JSON.stringify(check.sample.body);
  return probe.send(samplePath(r, check.sample), {
    method: r.method,
    ...(body !== undefined && { headers: { 'content-type': check.contentType ?? 'application/json' }, body }),
  });
};

/**
 * One generic check. A read key is refused every write operation before its input is read: the
 * first write operation's 403 tells the suite its key is one (then the rest needs a write key),
 * and only then is the read key's own check sent, which the gateway refuses before it creates.
 */
const generic =
  (check: GenericCheck): Check =>
  async (probe, state) => {
    const r = route(check.operationId);
    if (check.readKey && state.readKey !== true)
      return { skipped: `needs a read key, to check that "${RULES.readKeyForbidden}"` };
    for (let sent = 0; sent < (check.twice ? 2 : 1); sent++) {
      const reply = await sendSample(probe, r, check);
      if (!check.readKey && r.scope === 'write' && reply.status === 403 && state.readKey !== false) {
        probe.expectError(reply, 'readKeyForbidden', 403, 'FORBIDDEN');
        state.readKey = true;
        return {
          skipped: `the key has scope read: 403 FORBIDDEN as docs/api.md says; "${ruleText(check.rule)}" needs a write key`,
        };
      }
      if (r.scope === 'write' && !check.readKey) state.readKey = false;
      const problems = answerProblems(check, answerOf(reply));
      probe.expect(reply, check.rule, problems.length === 0, `${sent ? 'sent again: ' : ''}${problems.join('; ')}`);
      // The gateway's 403 is not the function's answer: no deprecation headers on it.
      const deprecation = check.readKey ? [] : deprecationProblems(r, answerOf(reply));
      probe.expect(reply, 'deprecation', deprecation.length === 0, deprecation.join('; '));
    }
  };

/** Each operation's own read checks, then its generic ones, in the route table's order. */
const readChecks = (): (readonly [string, Check])[] =>
  routes.flatMap((r) => [
    ...(ownChecks(r.operationId).read ?? []),
    ...genericChecks(r).map((check): [string, Check] => [check.name, generic(check)]),
  ]);

/** Write mode only: runs first, so that the listing, paging and getPet checks have animals to read. */
const writeChecks = (): (readonly [string, Check])[] => routes.flatMap((r) => ownChecks(r.operationId).write ?? []);

/** Runs every check once, in order; one check's failure never stops the others. */
export const runSmokeChecks = async (options: SmokeOptions): Promise<CheckResult[]> => {
  const probe = new Probe(options);
  // Writing, the key must be a write key: a 403 is then a failure, not a read key's answer.
  const state: State = { animals: [], ...(options.readOnly ? {} : { readKey: false }) };
  const results: CheckResult[] = [];
  for (const [name, check] of [...(options.readOnly ? [] : writeChecks()), ...commonChecks, ...readChecks()]) {
    try {
      const outcome = await check(probe, state);
      results.push(outcome ? { name, outcome: 'skipped', note: outcome.skipped } : { name, outcome: 'passed' });
    } catch (error) {
      if (!(error instanceof Broken)) throw error;
      results.push({ name, outcome: 'failed', note: error.message, violation: error.violation });
    }
  }
  return results;
};
