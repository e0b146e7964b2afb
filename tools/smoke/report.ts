// The smoke suite's report: one line per check, then each broken rule with the request that
// broke it and the x-amzn-RequestId to look up (docs/runbook.md, "Start here").

import type { CheckResult } from './checks.ts';
import { ruleText } from './probe.ts';

export const passed = (results: readonly CheckResult[]): boolean => results.every((r) => r.outcome !== 'failed');

export const formatReport = (results: readonly CheckResult[], target: string): string => {
  const lines = [`Smoke checks against ${target}`];
  for (const { name, outcome, note } of results) {
    const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' }[outcome];
    lines.push(`${mark} ${name}${outcome === 'skipped' ? ` (${note})` : ''}`);
  }
  const broken = results.filter((r) => r.violation);
  if (broken.length) {
    lines.push('', 'Broken rules:');
    for (const { violation } of broken) {
      const { rule, request, requestId, problem } = violation!;
      lines.push(`- ${ruleText(rule)}`, `    ${request}: ${problem}`, `    x-amzn-RequestId: ${requestId ?? '(none)'}`);
    }
  }
  const count = (outcome: CheckResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
  lines.push('', `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  return lines.join('\n');
};
