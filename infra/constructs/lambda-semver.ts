// Bundled in place of `semver` (api-function.ts, esbuild alias). In the Lambda bundles only
// the X-Ray SDK's AWS SDK v2 patcher (aws-xray-sdk-core's patchers/aws_p.js) requires it, to
// check the v2 SDK's version inside captureAWS; the functions use SDK v3, traced by
// captureAWSv3Client, and never call it. Yet the whole of semver (~29 kB, some 40 RegExps
// built at load) was evaluated at every cold start with the Tracer on (npm run bench:cold).
// test/cdk/bundle-tracing.test.ts checks that nothing else in a bundle imports semver.

/** What captureAWS would ask: refused, since no SDK v2 is in the bundles to trace. */
export const gte = (version: string, minimum: string): never => {
  throw new Error(`semver is not bundled: AWS SDK v2 ${version} (≥ ${minimum}) cannot be traced here; use SDK v3`);
};
