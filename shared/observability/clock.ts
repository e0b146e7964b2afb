// The time each log line names, formatted once per millisecond: under load many lines are written
// within one, and each `new Date().toISOString()` costs more than the lookup that replaces it.
let lastMs = Number.NaN;
let lastIso = '';

/** Now, as ISO 8601 in UTC to the millisecond (what Powertools writes as `timestamp`). */
export const isoNow = (now = Date.now()): string => {
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
};
