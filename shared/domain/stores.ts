// The domain: what the service knows of animals and keys, whatever stores them. These
// ports are what the Lambda adapter (shared/lambda) calls; shared/dynamodb implements
// them. Beside them: the paging cursor, the id allocator and the API key format.
// shared/domain imports only shared/api (the contract's shapes and typed errors).
import type { NewPet, Pet, PetStatus } from '../api/schemas.ts';
import type { KeyScope } from './api-keys.ts';

interface ListRequest {
  limit: number;
  status?: PetStatus | undefined;
  cursor?: string | undefined;
}
export interface ListPage {
  pets: Pet[];
  /** Present when more animals match: the cursor of the next page. */
  nextCursor?: string;
}

export interface PetsRepository {
  /** Creates under a fresh id, or under `id` (an id from newId, chosen before): never over another animal. */
  create(newPet: NewPet, id?: number): Promise<Pet>;
  /** An id no animal has, and none will be given: for a create that must name its id before it writes. */
  newId(): Promise<number>;
  get(id: number): Promise<Pet | undefined>;
  /** Changes some fields of the animal `id`; undefined, and nothing written, when no animal has it. */
  update(id: number, changes: Partial<NewPet>): Promise<Pet | undefined>;
  list(request: ListRequest): Promise<ListPage>;
}

/**
 * Who made a change to a key and why: the OS user locally, the caller's AWS identity deployed
 * (STS GetCallerIdentity's ARN), or what else made it (the stack's own read keys); `reason` is
 * the key tool's `--reason`.
 */
export interface KeyChangeAuthor {
  by: string;
  reason?: string | undefined;
}

/** One change to a key, kept with it: `keys list` shows the last one of each key. */
export interface KeyChange {
  action: 'created' | 'rotated' | 'revoked';
  by: string;
  /** ISO 8601. */
  at: string;
  reason?: string;
}

export interface KeyRecord {
  keyId: string;
  label: string;
  createdAt: string;
  revokedAt?: string;
  /** Absent on keys issued before scopes: those are `write`. */
  scope?: KeyScope;
  /** From then on the key is refused, as a revoked one is. */
  expiresAt?: string;
  /** The key this one replaced (`keys rotate`), and the key that replaced this one. */
  rotatedFrom?: string;
  rotatedTo?: string;
  /** When the authorizer last let the key in, to within LAST_USE_RESOLUTION_MS. */
  lastUsedAt?: string;
  /** Its changes, oldest first; absent on a key made before changes were recorded, or by nobody named. */
  changes?: KeyChange[];
}

/** What the authorizer needs to know of a key. */
interface KeyGrant {
  keyId: string;
  revoked: boolean;
  scope: KeyScope;
  expiresAt?: string | undefined;
  /** Its usage identifier: none for a key issued before usage plans. */
  usageKey?: string | undefined;
  lastUsedAt?: string | undefined;
}

export interface NewKeyOptions {
  scope?: KeyScope | undefined;
  expiresAt?: string | undefined;
  /** Who creates it and why: recorded with the key. */
  author?: KeyChangeAuthor | undefined;
}

type IssuedKey = KeyRecord & { key: string; usageKey: string };

interface RotateOptions {
  oldExpiresAt: string;
  /** The new key's own expiry; none by default. */
  expiresAt?: string | undefined;
  prepare?: ((created: IssuedKey) => Promise<void>) | undefined;
  /** Who rotates it and why: recorded with both keys. */
  author?: KeyChangeAuthor | undefined;
}

/** Why a rotation was refused: the key is revoked, or was already rotated (to `rotatedTo`). */
export class RotationRefused extends Error {}

export interface KeysRepository {
  /** The key's grant; undefined when no such key was ever issued. */
  lookup(key: string): Promise<KeyGrant | undefined>;
  /**
   * Records that the key was used now, unless a use within LAST_USE_RESOLUTION_MS is
   * recorded already (a conditional write: concurrent authorizers write once).
   */
  recordUse(key: string, now?: Date): Promise<void>;
  /** Issues a new key: the only time the key itself is ever seen. */
  create(label: string, options?: NewKeyOptions): Promise<IssuedKey>;
  /**
   * Issues a key with the label and scope of `keyId`, then sets `keyId` to expire at
   * `oldExpiresAt` (unless it expires sooner) and links the two. `prepare` runs on the new
   * key before the old one is touched: when it throws, the new key is revoked and the old
   * one left as it was. Undefined when no such key exists; RotationRefused when it is
   * revoked or already rotated.
   */
  rotate(keyId: string, options: RotateOptions): Promise<{ old: KeyRecord; created: IssuedKey } | undefined>;
  /** Gives every key that has none a usage identifier (keys issued before usage plans); returns those keys. */
  assignUsageKeys(): Promise<Array<{ keyId: string; usageKey: string }>>;
  /** Registers a key chosen elsewhere (PETSTORE_API_KEY), by `author`; keeps the record if it exists. */
  register(key: string, label: string, author?: KeyChangeAuthor): Promise<KeyRecord>;
  list(): Promise<KeyRecord[]>;
  /**
   * Revokes by key id, recording `author`'s change; false when no such key exists. Revoking twice
   * keeps the first revocation, its time and its record.
   */
  revoke(keyId: string, author?: KeyChangeAuthor): Promise<boolean>;
}
