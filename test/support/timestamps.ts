// The time the local stage's plain-text lines start with (infra/local/timestamped.ts), written
// from ISO 8601 itself, not from the code: UTC to the millisecond, then one space.

/** As a regular expression's source, to put before a line's text: `^${STAMP}stopped$`. */
export const STAMP = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z `;

const LEADING_STAMP = new RegExp(`^${STAMP}`);

/** A plain-text line without the time it starts with; throws if it starts with none. */
export const unstamped = (line: string): string => {
  if (!LEADING_STAMP.test(line)) throw new Error(`no timestamp: ${line}`);
  return line.replace(LEADING_STAMP, '');
};
