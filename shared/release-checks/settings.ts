// The environment the stack gives each pre-traffic hook (infra/constructs/release-hook.ts),
// named once for both sides. Pure data: the CDK app imports it.
export const RELEASE_CHECK_ENV = {
  /** Which function's checks to run (a CheckedFunction). */
  function: 'RELEASE_CHECK_FUNCTION',
  /** The ARN of the version under test: the only thing the hook may invoke. */
  version: 'RELEASE_CHECK_VERSION_ARN',
  /** The stage's name, as its events carry it. */
  stage: 'RELEASE_CHECK_STAGE',
  /** The authorizer's hook only: the secret that holds the stage's probe key. */
  probeKeySecret: 'RELEASE_CHECK_PROBE_KEY_SECRET',
} as const;
