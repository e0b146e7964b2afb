// Reading a profile valgrind's callgrind wrote (its format: https://valgrind.org/docs/manual/cl-format.html):
// the instructions each function ran itself, and what share of them V8's garbage collector and
// compilers ran, which depend on when they happen to run; the rest, the program's own code with
// the builtins and runtime it calls, does not.

/**
 * Self cost per function, `object` and name: each cost line counts for the function named last,
 * except the line after `calls=`, which is the call's inclusive cost (the callee's own lines count
 * it already). Names may be compressed: `(id) name` the first time, `(id)` after.
 */
export const selfCosts = (profile: string): Map<string, number> => {
  const names = { fn: new Map<string, string>(), ob: new Map<string, string>() };
  const named = (kind: 'fn' | 'ob', spec: string): string => {
    const compressed = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!compressed) return spec;
    const [, id, name] = compressed as unknown as [string, string, string | undefined];
    if (name !== undefined) names[kind].set(id, name);
    return names[kind].get(id) ?? `(${id})`;
  };
  const costs = new Map<string, number>();
  let fn = '';
  let ob = '';
  let callCost = false;
  for (const line of profile.split('\n')) {
    const first = line[0];
    if (first === undefined) continue;
    if ((first >= '0' && first <= '9') || first === '+' || first === '-' || first === '*') {
      if (callCost) callCost = false;
      else {
        const cost = Number(line.split(' ')[1] ?? 0);
        const key = `${ob}\t${fn}`;
        costs.set(key, (costs.get(key) ?? 0) + cost);
      }
    } else if (line.startsWith('fn=')) fn = named('fn', line.slice(3));
    else if (line.startsWith('ob=')) ob = named('ob', line.slice(3));
    else if (line.startsWith('cfn=') || line.startsWith('cfi=') || line.startsWith('cfl=')) {
      if (line.startsWith('cfn=')) named('fn', line.slice(4));
    } else if (line.startsWith('cob=')) named('ob', line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
  }
  return costs;
};

/** V8's garbage collector and its compilers (Maglev, Turbofan, Sparkplug, the parser), by their C++ names. */
const GC =
  /Scaveng|Heap|Marking|MarkCompact|Sweep|Evacuat|IteratePointers|heap::|RememberedSet|SlotSet|Minor|Major|GCTracer|ConcurrentMarking/;
const COMPILER =
  /compiler::|maglev::|turboshaft::|Maglev|Turbofan|Compiler|baseline::|interpreter::|Bytecode|Parser|Scanner/;

/**
 * Instructions in all, and those of V8's collector and compilers, from a callgrind profile; the
 * functions' own costs must add up to the total valgrind writes at the profile's end.
 */
export const instructionSplit = (profile: string) => {
  let total = 0;
  let gc = 0;
  let compiler = 0;
  for (const [key, cost] of selfCosts(profile)) {
    total += cost;
    const name = key.slice(key.indexOf('\t') + 1);
    if (name.startsWith('0x')) continue; // JIT-compiled code, which valgrind cannot name
    if (GC.test(name)) gc += cost;
    else if (COMPILER.test(name)) compiler += cost;
  }
  const reported = Number((/^totals: (\d+)$/m.exec(profile) ?? /^summary: (\d+)$/m.exec(profile))?.[1]);
  if (total !== reported) throw new Error(`the profile's functions add up to ${total}, its total says ${reported}`);
  return { total, gc, compiler, program: total - gc - compiler };
};
