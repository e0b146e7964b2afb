// The contract: every request's lines name "the key's id (also when the key was refused, where the
// key is known)". A read key's POST is refused by the gateway (403, the authorizer's policy), after
// the authorizer named the key: its access line names the key id, on the authorizer's first call
// and on a cached policy alike (the stage as users run it: the authorizer cache on, 300 s), where
// API Gateway's `$context.authorizer.principalId` is the principalId of the policy it evaluated.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { parseOutput } from '../support/observability.ts';
import { bearer, disposeServer, expectError, keyTool, postPet, startServer } from './support.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await startServer();
}, 60_000);
afterAll(() => disposeServer(server));

it("a read key's refused create names its key id, uncached and cached", async () => {
  const created = await keyTool(server.dataDir, 'create', '--label', 'reader', '--scope', 'read');
  expect(created.code, created.stderr).toBe(0);
  const key = /\b(pet_[0-9A-Za-z]+)/.exec(created.stdout)![1]!;
  const keyId = /\b(key_[0-9A-Za-z]+)/.exec(created.stdout)![1]!;
  const requestIds: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const refused = await postPet(server, { name: 'Nope', categoryId: 1 }, { authorization: bearer(key) });
    requestIds.push(expectError(refused, 403, 'FORBIDDEN', [key]).requestId);
  }
  await new Promise((resolve) => setTimeout(resolve, 300)); // the stage's output, batched
  const lines = requestIds.map((id) => parseOutput(server.output()).accessLog.find((l) => l.requestId === id));
  expect(lines.map((l) => l?.status)).toEqual([403, 403]);
  expect(lines.map((l) => l?.keyId)).toEqual([keyId, keyId]);
  // The second was the cached policy's: no authorizer call to join.
  expect(lines[0]!.authorizerRequestId).toEqual(expect.any(String));
  expect(lines[1]!.authorizerRequestId).toBeNull();
  expect(server.output()).not.toContain(key);
}, 120_000);
