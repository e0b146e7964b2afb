// Bundled in place of @aws-sdk/credential-provider-node, the SDK's default credential
// chain (api-function.ts, esbuild alias). Lambda gives a function its role's
// credentials in environment variables and nowhere else, so of the chain (environment,
// SSO, profiles, web identity, container and instance metadata…) only its first link
// can ever answer there; the others are a third of every bundle and of its import
// (docs/performance.md, "Functions alone": the full chain's bundle, `npm run bench:cold` at commit 921b850).
// Only the Lambda bundles use this: tests, the local server and the key tool keep the full chain.
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
