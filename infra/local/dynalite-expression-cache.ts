// dynalite parses every request's expressions (Condition, KeyCondition, Filter, Projection,
// Update) with its PEG parsers, ~200 KB of garbage a createPet on the server's heap: the largest
// allocation of a request (docs/performance.md, "The young generation"). The service sends a
// handful of expressions, so each parse is memoized here, keyed by what the parser reads: the
// parser, the text, ExpressionAttributeNames, and of each ExpressionAttributeValue only what the
// grammars' checks read (which type keys it holds), except where a grammar reads a value's content
// (BETWEEN's bounds, attribute_type's operand): there the values themselves are in the key.
//
// Three things keep a hit exactly what a parse would have been:
// - The parser deletes the names and values it resolves from `context.unusedAttrNames` /
//   `unusedAttrVals`, which dynalite then checks ("unused in expressions"). A miss parses with
//   sets holding every name and value, records which it deleted, and every call (miss or hit)
//   deletes those from the request's own sets.
// - The tree holds the request's value objects themselves (resolveAttrVal returns them): the
//   cache keeps their places, and a hit puts the request's own objects there.
// - dynalite mutates parse results (updateItem replaces each SET section's `val` with its resolved
//   value): the cache never hands out what it keeps, each hit is a fresh copy (aliasing and
//   null prototypes kept).
// Semantic errors are results (strings) and are cached like trees; syntax errors are thrown by
// the parser and are not cached: a client's typo is not a hot path.
import { fromDynalite } from './dynalite-modules.ts';

/** Distinct parses kept, least recently used dropped first: the service sends about twenty. */
const EXPRESSION_CACHE_SIZE = 256;

interface ParseContext {
  attrNames?: Record<string, string>;
  attrVals?: Record<string, Record<string, unknown>>;
  unusedAttrNames?: Record<string, boolean>;
  unusedAttrVals?: Record<string, boolean>;
  isKeyCondition?: boolean;
}
type Parse = (text: string, options: { context: ParseContext; startRule?: string }) => unknown;
interface Parser {
  parse: Parse;
}

/** A value's place in a cached tree: the request's own ExpressionAttributeValues[name] goes there. */
class ValueSlot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

interface Entry {
  tree: unknown;
  usedNames: string[];
  usedValues: string[];
}

// What the grammars read of a value besides its type keys: the condition grammar compares
// BETWEEN's bounds and reads attribute_type's type name. Function names are case-sensitive there.
const CONDITION_READS_CONTENT = /between|attribute_type/i;

const TYPES = new Set(['S', 'N', 'B', 'NULL', 'BOOL', 'SS', 'NS', 'BS', 'L', 'M']);

const valueShapes = (values: ParseContext['attrVals']): string => {
  if (values === undefined) return '-';
  let shape = '';
  for (const name in values) {
    shape += `${name}:`;
    const value = values[name]!;
    // the grammars' type checks read `value[type] != null` for the ten types, and `attrType`
    for (const key in value)
      shape += TYPES.has(key) ? (value[key] == null ? `${key}=,` : `${key},`) : `${key}=${JSON.stringify(value[key])},`;
    shape += ';';
  }
  return shape;
};

const keyOf = (text: string, context: ParseContext, readsContent: RegExp | undefined): string =>
  `${context.isKeyCondition === true}\u0000${text}\u0000${JSON.stringify(context.attrNames) ?? '-'}\u0000${
    readsContent?.test(text) ? JSON.stringify(context.attrVals) : valueShapes(context.attrVals)
  }`;

/** `tree` with each of `values`' objects (by identity) replaced by its slot; copied, not shared. */
const template = (tree: unknown, values: Map<unknown, ValueSlot>, seen: Map<object, unknown>): unknown => {
  if (typeof tree !== 'object' || tree === null) return tree;
  const slot = values.get(tree);
  if (slot !== undefined) return slot;
  return copyOf(tree, seen, (child) => template(child, values, seen));
};

/** A fresh copy of a cached tree, with the request's own value objects in their slots. */
const instance = (tree: unknown, values: ParseContext['attrVals'], seen: Map<object, unknown>): unknown => {
  if (typeof tree !== 'object' || tree === null) return tree;
  if (tree instanceof ValueSlot) return values![tree.name];
  return copyOf(tree, seen, (child) => instance(child, values, seen));
};

const copyOf = (tree: object, seen: Map<object, unknown>, child: (value: unknown) => unknown): unknown => {
  const done = seen.get(tree);
  if (done !== undefined) return done;
  if (Array.isArray(tree)) {
    const copy: unknown[] = new Array(tree.length);
    seen.set(tree, copy);
    for (let i = 0; i < tree.length; i++) copy[i] = child(tree[i]);
    return copy;
  }
  const copy = Object.create(Object.getPrototypeOf(tree)) as Record<string, unknown>;
  seen.set(tree, copy);
  for (const key of Object.keys(tree)) copy[key] = child((tree as Record<string, unknown>)[key]);
  return copy;
};

const setOf = (record: object | undefined): Record<string, boolean> => {
  const set: Record<string, boolean> = Object.create(null);
  for (const key in record) set[key] = true;
  return set;
};

const deleted = (before: object | undefined, after: Record<string, boolean>): string[] => {
  const names: string[] = [];
  for (const key in before) if (!(key in after)) names.push(key);
  return names;
};

/**
 * `parser.parse`, memoized in an LRU of `size` entries of its own; the values' content is in the
 * key of a text that `readsContent` matches.
 */
export const memoizedParse = (
  parser: Parser,
  readsContent: RegExp | undefined,
  size = EXPRESSION_CACHE_SIZE,
): Parse => {
  const parse = parser.parse;
  const cache = new Map<string, Entry>();
  return (text, options) => {
    const context = options.context;
    if (options.startRule !== undefined || context === undefined) return parse(text, options);
    const key = keyOf(text, context, readsContent);
    let entry = cache.get(key);
    if (entry === undefined) {
      const unusedAttrNames = setOf(context.attrNames);
      const unusedAttrVals = setOf(context.attrVals);
      let tree: unknown;
      try {
        tree = parse(text, { ...options, context: { ...context, unusedAttrNames, unusedAttrVals } });
      } finally {
        // a syntax error is thrown part way through: the names resolved until then are used too
        for (const name of deleted(context.attrNames, unusedAttrNames)) delete context.unusedAttrNames?.[name];
        for (const name of deleted(context.attrVals, unusedAttrVals)) delete context.unusedAttrVals?.[name];
      }
      const slots = new Map<unknown, ValueSlot>();
      for (const name in context.attrVals) slots.set(context.attrVals[name], new ValueSlot(name));
      entry = {
        tree: template(tree, slots, new Map()),
        usedNames: deleted(context.attrNames, unusedAttrNames),
        usedValues: deleted(context.attrVals, unusedAttrVals),
      };
      if (cache.size >= size) cache.delete(cache.keys().next().value!);
      cache.set(key, entry);
      return tree;
    }
    cache.delete(key); // most recently used last
    cache.set(key, entry);
    for (const name of entry.usedNames) delete context.unusedAttrNames?.[name];
    for (const name of entry.usedValues) delete context.unusedAttrVals?.[name];
    return instance(entry.tree, context.attrVals, new Map());
  };
};

// The parsers as dynalite's validations load them: it looks `parse` up on each call.
// The update grammar reads only its values' types, the projection grammar no values.
for (const [path, readsContent] of [
  ['./db/conditionParser', CONDITION_READS_CONTENT],
  ['./db/updateParser', undefined],
  ['./db/projectionParser', undefined],
] as const) {
  const parser = fromDynalite(path) as Parser;
  parser.parse = memoizedParse(parser, readsContent);
}
