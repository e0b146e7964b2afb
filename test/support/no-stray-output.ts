// A green `npm test` prints nothing a reader has to wonder about, and no key: its output is a log
// (CI keeps it), and the contract lets no key into a log. Every test file's worker is watched
// here: a raw log line of the functions or the local stage (a JSON line, `{"level":…` or an
// access line) written to this process's stdout or stderr fails the file that wrote it, and
// anything shaped like a key is masked before it goes out, then fails the file too. A test that
// expects log lines captures them and asserts on them; one that wants none sets the level.
// (Child processes a test starts write to pipes the test reads, or are not the tests' output.)
import { afterAll } from 'vitest';

const LOG_LINE = /^\{"(level|accessLog|requestId|message)"/m;
const KEY = /pet_[0-9A-Za-z]{32,}/g;
const stray: string[] = [];

for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) return write(chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const masked = text.replace(KEY, 'pet_<masked>');
    if (masked !== text || LOG_LINE.test(text)) stray.push(masked.slice(0, 400));
    return masked === text ? write(chunk, ...rest) : write(masked, ...rest);
  }) as typeof stream.write;
}

afterAll(() => {
  if (stray.length)
    throw new Error(
      `this file wrote ${stray.length} stray line(s) to the test output (a log line or a key); capture ` +
        `expected log lines and assert on them instead:\n${stray.slice(0, 5).join('\n')}`,
    );
});
