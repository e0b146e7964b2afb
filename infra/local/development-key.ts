// The local development key: minted once, kept in the data directory (readable by its
// owner only) and printed at every start. Minting one per start left a valid key
// behind each time, held by nobody.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_PATTERN } from '../../shared/domain/api-keys.ts';
import type { KeyRecord, KeysRepository } from '../../shared/domain/stores.ts';

const DEVELOPMENT_KEY_FILE = 'development-key';
const LABEL = 'npm start (local development key)';

const kept = (file: string): string | undefined => {
  try {
    const key = readFileSync(file, 'utf8').trim();
    return KEY_PATTERN.test(key) ? key : undefined;
  } catch {
    return undefined;
  }
};

/** The key kept in `dataDir`, registered if the store lost it; a new one when there is none or it was revoked. */
export const developmentKey = async (
  dataDir: string,
  keys: KeysRepository,
): Promise<{ key: string; keyRecord: KeyRecord }> => {
  const file = join(dataDir, DEVELOPMENT_KEY_FILE);
  const key = kept(file);
  if (key) {
    const keyRecord = await keys.register(key, LABEL);
    if (!keyRecord.revokedAt) return { key, keyRecord };
  }
  const { key: created, usageKey: _usageKey, ...keyRecord } = await keys.create(LABEL);
  writeFileSync(file, `${created}\n`, { mode: 0o600 });
  return { key: created, keyRecord };
};
