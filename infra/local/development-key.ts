// The local development key: minted once, kept in the data directory (readable by its
// owner only) and shown at every start (options.ts: printed on a terminal, else only its
// file's path). Minting one per start left a valid key behind each time, held by nobody.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_PATTERN } from '../../shared/domain/api-keys.ts';
import type { KeyRecord, KeysRepository } from '../../shared/domain/stores.ts';
import { osUser } from './os-user.ts';

const DEVELOPMENT_KEY_FILE = 'development-key';

/** The file in `dataDir` that holds the development key (0600, as every file there). */
export const developmentKeyFile = (dataDir: string): string => join(dataDir, DEVELOPMENT_KEY_FILE);
const LABEL = 'npm start (local development key)';

export const kept = (file: string): string | undefined => {
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
  const file = developmentKeyFile(dataDir);
  const key = kept(file);
  if (key) {
    const keyRecord = await keys.register(key, LABEL, {
      by: osUser(),
      reason: 'npm start: the kept development key, which the store had lost',
    });
    if (!keyRecord.revokedAt) return { key, keyRecord };
  }
  const {
    key: created,
    usageKey: _usageKey,
    ...keyRecord
  } = await keys.create(LABEL, {
    author: {
      by: osUser(),
      reason: key ? 'npm start: the kept development key was revoked' : 'npm start: first start',
    },
  });
  writeFileSync(file, `${created}\n`, { mode: 0o600 });
  return { key: created, keyRecord };
};
