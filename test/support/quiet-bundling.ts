// CDK writes "Bundling asset <path>..." to stderr for every function it bundles, whatever the
// bundling's logLevel (which governs esbuild's own output: its warnings and errors still show,
// written by esbuild's process, not through this one). One line per asset per synthesis is
// news to nobody in a test run, so that exact line, and nothing else, is dropped.
const BUNDLING_LINE = /^Bundling asset \S+\.\.\.\r?\n?$/;

const write = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
  typeof chunk === 'string' && BUNDLING_LINE.test(chunk) ? true : write(chunk, ...rest)) as typeof process.stderr.write;
