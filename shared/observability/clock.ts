// The time each log line names, formatted once per millisecond: under load many lines are written
// within one, and each `new Date().toISOString()` costs more than the lookup that replaces it.
// A new millisecond costs one concatenation: the text up to the second is made once a second
// (by toISOString), the millisecond's `.mmmZ` once per value and kept, where a Date and its
// toISOString per millisecond went through V8's date cache and a printf (callgrind: ~3k
// instructions a line).
let lastMs = Number.NaN;
let lastIso = '';
let second = Number.NaN;
/** `YYYY-MM-DDTHH:mm:ss` of `second`. */
let secondIso = '';
/** `.mmmZ` by millisecond, made when first needed. */
const millis: string[] = [];
/** 10000-01-01T00:00:00Z: from then on toISOString writes a six-digit signed year. */
const YEAR_10000 = 253_402_300_800_000;

/** Now, as ISO 8601 in UTC to the millisecond (what Powertools writes as `timestamp`). */
export const isoNow = (now = Date.now()): string => {
  if (now !== lastMs) {
    lastMs = now;
    if (!(Number.isInteger(now) && now >= 0 && now < YEAR_10000)) {
      lastIso = new Date(now).toISOString();
      return lastIso;
    }
    const ms = now % 1000;
    if (now - ms !== second) {
      second = now - ms;
      secondIso = new Date(second).toISOString().slice(0, 19);
    }
    let fraction = millis[ms];
    if (fraction === undefined) {
      fraction = `.${String(ms).padStart(3, '0')}Z`;
      millis[ms] = fraction;
    }
    lastIso = secondIso + fraction;
  }
  return lastIso;
};
