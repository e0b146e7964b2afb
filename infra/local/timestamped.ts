// The local stage's plain-text lines (its banner, warnings and what a stop does) each start with
// the time they were written, as its JSON lines carry theirs (`timestamp`): a captured log says
// when a warning came, and sorts with the rest.
import { isoNow } from '../../shared/observability/clock.ts';

/** `text` with each of its lines led by now, ISO 8601 in UTC to the millisecond, and a space. */
export const timestamped = (text: string): string => text.replace(/^/gm, `${isoNow()} `);
