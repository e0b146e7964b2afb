// The domain: what the service knows of animals and keys, whatever stores them. These
// ports are what the Lambda adapter (shared/lambda) calls; shared/dynamodb implements
// them. Beside them: the paging cursor, the id allocator and the API key format.
// shared/domain imports only shared/api (the contract's shapes and typed errors).
import type { NewPet, Pet, PetStatus } from '../api/schemas.ts';

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
  list(request: ListRequest): Promise<ListPage>;
}

export interface KeyRecord {
  keyId: string;
  label: string;
  createdAt: string;
  revokedAt?: string;
}
export interface KeysRepository {
  /**
   * The key's id, whether it was revoked, and its usage identifier (none for a key issued
   * before usage plans); undefined when no such key was ever issued.
   */
  lookup(key: string): Promise<{ keyId: string; revoked: boolean; usageKey?: string | undefined } | undefined>;
  /** Issues a new key: the only time the key itself is ever seen. */
  create(label: string): Promise<KeyRecord & { key: string; usageKey: string }>;
  /** Gives every key that has none a usage identifier (keys issued before usage plans); returns those keys. */
  assignUsageKeys(): Promise<Array<{ keyId: string; usageKey: string }>>;
  /** Registers a key chosen elsewhere (PETSTORE_API_KEY); keeps the record if it exists. */
  register(key: string, label: string): Promise<KeyRecord>;
  list(): Promise<KeyRecord[]>;
  /** Revokes by key id; false when no such key exists. Revoking twice keeps the first time. */
  revoke(keyId: string): Promise<boolean>;
}
