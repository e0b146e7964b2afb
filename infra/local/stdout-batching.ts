// The local stage's stdout, written once per turn of the event loop. Each API request prints
// two lines at the default LOG_LEVEL (its function's summary line with the metrics, then the
// gateway's access line), and Node writes to a pipe or a terminal synchronously: a write()
// system call per line, each waking the reader, which made those lines the largest cost the
// local stage had beyond the bare server's (docs/performance.md, "Where the CPU went"). Held
// with the stream's own cork() instead, the lines of one turn go out together in one writev,
// as soon as the turn's callbacks have run (setImmediate), in the order they were written.
// Nothing waits longer than that turn, and nothing is lost on the way out: a write to stderr
// first lets out what stdout holds (a terminal shows both in the order they were written), and
// so does the process's exit (process.exit, the end of the loop, an uncaught exception, before
// Node prints it). Only kill -9 can take the lines of the turn it lands in.

/** From now on, what this process writes to stdout during one turn is written at its end. */
export const batchStdoutByTurn = (): void => {
  const { stdout, stderr } = process;
  let held = false;
  const release = () => {
    if (!held) return;
    held = false;
    stdout.uncork();
  };
  const writeOut = stdout.write;
  stdout.write = function (this: typeof stdout, ...args: Parameters<typeof stdout.write>) {
    if (!held) {
      held = true;
      stdout.cork();
      setImmediate(release);
    }
    return Reflect.apply(writeOut, this, args);
  } as typeof stdout.write;
  const writeErr = stderr.write;
  stderr.write = function (this: typeof stderr, ...args: Parameters<typeof stderr.write>) {
    release();
    return Reflect.apply(writeErr, this, args);
  } as typeof stderr.write;
  process.on('exit', release);
};
