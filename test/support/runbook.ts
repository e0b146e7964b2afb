// docs/runbook.md as its tests read it: the page, and the text of one `###` section.
import { readFileSync } from 'node:fs';

export const runbook = readFileSync(new URL('../../docs/runbook.md', import.meta.url), 'utf8');

/** The text of a `###` section, up to the next heading. */
export const section = (title: string): string | undefined => {
  const start = runbook.indexOf(`\n### ${title}\n`);
  if (start < 0) return undefined;
  const rest = runbook.slice(start + title.length + 6);
  return rest.slice(0, rest.search(/\n##+ /) >>> 0);
};

/** What a section says to open first: the text between its "Open first" and "Mitigate" labels. */
export const openFirst = (text: string): string =>
  text.slice(text.indexOf('**Open first:**') + '**Open first:**'.length, text.indexOf('**Mitigate:**'));

/** A dashboard widget is named in italics, *like this*: one star each side, not a bold label's two. */
export const NAMES_A_WIDGET = /(?<!\*)\*[^*\s][^*]*\*(?!\*)/;

/**
 * What the runbook lacks to document an alarm of the stack, by its name (`<stack>-<Kind>` or
 * `<stack>-<Kind>-<subject>`), or undefined: a `### <Kind>` section, and for an alarm of an
 * operation, a function or a table, the section's rule naming it: `<Kind>-<operation>`,
 * `<Kind>-<function>` or `<Kind>-<table>` (or the name itself, for the one function no route has).
 */
export const undocumentedAlarm = (
  alarmName: string,
  stack: string,
  subjects: { operations: readonly string[]; functions: readonly string[]; tables: readonly string[] },
): string | undefined => {
  const [kind, ...rest] = alarmName.slice(stack.length + 1).split('-');
  const text = kind === undefined ? undefined : section(kind);
  if (text === undefined) return `${alarmName}: no "### ${kind}" section`;
  const subject = rest.join('-');
  const placeholders = [
    ...(subjects.operations.includes(subject) ? ['operation', 'function'] : []),
    ...(subjects.functions.includes(subject) ? ['function'] : []),
    ...(subjects.tables.includes(subject) ? ['table'] : []),
  ];
  if (placeholders.length === 0) return undefined; // no subject, or one the kind's section explains (an SLO's window)
  const names = [...new Set(placeholders)].map((p) => `\`${kind}-<${p}>\``).concat(`\`${kind}-${subject}\``);
  return names.some((name) => text.includes(name))
    ? undefined
    : `${alarmName}: its section names none of ${names.join(', ')}`;
};
