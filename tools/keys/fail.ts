/** Ends the key tool with a one-line reason on stderr and a non-zero exit. */
export const fail = (message: string): never => {
  console.error(`keys: ${message}`);
  process.exit(1);
};
