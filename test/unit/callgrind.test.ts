// Reading callgrind's profiles (tools/harness/callgrind.ts), against a profile written by hand to
// valgrind's documented format (https://valgrind.org/docs/manual/cl-format.html): compressed names,
// a call whose inclusive cost is not the caller's own, relative and repeated positions.
import { expect, test } from 'vitest';
import { instructionSplit, selfCosts } from '../../tools/harness/callgrind.ts';

const PROFILE = `version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1000
ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) main
0 100
cfn=(2) v8::internal::Scavenger::ScavengeObject
calls=3 0
0 500
fn=(2)
0 450
+2 50
fn=(3) 0x000000002801a500
ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
fn=(4) memcpy
-1 200
ob=(1)
fn=(3)
* 100
fn=(5) v8::internal::compiler::GraphReducer::Reduce()
0 100

totals: 1000
`;

test('self costs: a call line is the callee’s cost, not the caller’s; names compressed and reused', () => {
  expect(Object.fromEntries(selfCosts(PROFILE))).toEqual({
    '/usr/bin/node\tmain': 100,
    '/usr/bin/node\tv8::internal::Scavenger::ScavengeObject': 500,
    '/usr/lib/x86_64-linux-gnu/libc.so.6\tmemcpy': 200,
    '/usr/bin/node\t0x000000002801a500': 100,
    '/usr/bin/node\tv8::internal::compiler::GraphReducer::Reduce()': 100,
  });
});

test('the split adds up to the profile’s own totals line', () => {
  const split = instructionSplit(PROFILE);
  expect(split).toEqual({ total: 1000, gc: 500, compiler: 100, program: 400 });
  expect(split.total).toBe(Number(/^totals: (\d+)$/m.exec(PROFILE)![1]));
});

test('a profile whose functions do not add up to its total is refused', () => {
  expect(() => instructionSplit(PROFILE.replace('totals: 1000', 'totals: 1100'))).toThrow(/add up to 1000/);
});
