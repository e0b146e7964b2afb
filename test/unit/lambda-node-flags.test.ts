// The Node flags a function's process runs with in the harness (tools/harness/lambda-process.ts),
// held to the Lambda Node runtime's own start script: /var/runtime/bootstrap in AWS's Lambda base
// images for Node (public.ecr.aws/lambda/nodejs), whose memory section is quoted below as shipped
// and run by bash, so that the expectation is AWS's arithmetic, not ours.
import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { stageSettings } from '../../infra/stages.ts';
import { lambdaNodeFlags } from '../../tools/harness/lambda-process.ts';

const BOOTSTRAP_MEMORY_SECTION = `
if [ -n "$AWS_LAMBDA_FUNCTION_MEMORY_SIZE" ]; then
  new_space=$(expr $AWS_LAMBDA_FUNCTION_MEMORY_SIZE / 10)
  semi_space=$(expr $new_space / 2)
  old_space=$(expr $AWS_LAMBDA_FUNCTION_MEMORY_SIZE - $new_space)
  MEMORY_ARGS=(
    "--max-semi-space-size=$semi_space"
    "--max-old-space-size=$old_space"
  )
fi
NODE_ARGS=(
    --expose-gc
    --max-http-header-size 81920
    "\${MEMORY_ARGS[@]}"
    )
printf '%s\\n' "\${NODE_ARGS[@]}"
`;

/** The flags the bootstrap gives node for a function of `memoryMb`. */
const bootstrapFlags = (memoryMb: number): string[] =>
  execFileSync('bash', ['-c', BOOTSTRAP_MEMORY_SECTION], {
    env: { PATH: process.env.PATH, AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb) },
  })
    .toString()
    .trim()
    .split('\n');

test.each([128, 1024, 1769, 3008, 10240])('a function of %i MB runs with the flags Lambda gives it', (memoryMb) => {
  expect(lambdaNodeFlags(memoryMb)).toEqual(bootstrapFlags(memoryMb));
});

test("by default, the memory of the stage's functions", () => {
  expect(lambdaNodeFlags()).toEqual(bootstrapFlags(stageSettings.staging.memoryMb));
});
