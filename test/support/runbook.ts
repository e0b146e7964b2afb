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
