// A copy of this checkout's functions, shared code and stack with some files replaced, for the
// benchmarks' HANDLER_CHECKOUT (which builds another checkout's functions in place of this one's):
// a replaced handler shows whether a bench measures the code it was pointed at.
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runs `use` with the copy's directory, `files` (path in the checkout → its text) written in it; removes it after. */
export const withCheckoutCopy = <T>(files: Record<string, string>, use: (checkout: string) => T): T => {
  const checkout = mkdtempSync(join(tmpdir(), 'petstore-checkout-'));
  try {
    for (const dir of ['functions', 'shared', 'infra'])
      cpSync(resolve(ROOT, dir), join(checkout, dir), { recursive: true });
    symlinkSync(resolve(ROOT, 'node_modules'), join(checkout, 'node_modules'));
    for (const [path, text] of Object.entries(files)) writeFileSync(join(checkout, path), text);
    return use(checkout);
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
};
