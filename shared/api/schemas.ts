// The shapes of the API, once: request validation, the TypeScript types and the
// OpenAPI document (tools/openapi.ts) all come from these schemas.
// A namespace import: esbuild then keeps only what is used. `import { z }` drags in every
// locale zod ships (~370 KB of each function's bundle; see docs/performance.md).
// zod/mini, not classic zod: the same validation core and messages, but a schema is made
// without the dozens of methods classic zod installs on each one, and its module is smaller.
// getPet's bundle: 338 → 271 kB, and its import 60–62 → 51–56 ms (median of 21 and 31 fresh
// processes, classic and mini alternating; each function's bundle −67 kB alike). Hence
// functions (`z.optional(x)`, `.check(z.gte(1))`) instead of chained methods, and
// `.register(z.globalRegistry, …)` instead of `.meta()`.
import * as z from 'zod/mini';
import { CONTROL_CHARACTER } from './control-characters.ts';

// No generated parsers (zod's JIT compiles each object schema with `new Function` on its
// first parse): for these small shapes interpreting is faster, first parse (1.7 against
// 2.5 ms, which a cold start waits for) and every parse after (4.4 against 5.1 µs).
z.config({ jitless: true });

// Each schema below is marked pure: building one only registers its metadata (for the OpenAPI
// document, which imports every schema), so esbuild may drop from a Lambda bundle the schemas
// its function never uses, and a cold start does not build them (measured: each function's
// import 3–5 ms faster, median of 21 fresh processes). The mark covers a call, not the calls in
// its arguments: where those are calls esbuild cannot tell are pure (zod's checks, re-exported
// from its core; `.register`), the schema is built in a pure-marked arrow function, or esbuild
// keeps it (ListPetsQuery, PetIdParams, ErrorDetail and Id were in every bundle, and with them
// the authorizer's zod: its bundle 267 → 244 kB).

/** Ids and category ids stay within 2^53−1 so that every JSON client reads them exactly. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const NAME_MAX_LENGTH = 200;
const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
const LIMIT_DEFAULT = 20;

/** zod's error option: "is required" when the field is absent, else the rule it breaks. */
const rule = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message),
});

/** A copy of `schema` with `metadata`, as classic zod's `.meta()`: the original stays without it. */
const meta = <S extends z.ZodMiniType>(schema: S, metadata: z.core.GlobalMeta): S => {
  const copy = schema.clone();
  z.globalRegistry.add(copy, metadata);
  return copy;
};

const idMessage = `must be an integer from 1 to ${MAX_ID}`;
const Id = /* @__PURE__ */ (() => z.int(rule(idMessage)).check(z.gte(1, idMessage), z.lte(MAX_ID, idMessage)))();

export const PetStatus = /* @__PURE__ */ z
  .enum(['available', 'pending', 'sold'], rule('must be one of available, pending, sold'))
  .register(z.globalRegistry, { id: 'PetStatus', description: 'Availability of the animal.' });
export type PetStatus = z.infer<typeof PetStatus>;

const nameMessage = `must be a string of 1 to ${NAME_MAX_LENGTH} characters`;
const controlMessage = 'must not contain control characters (U+0000–U+001F, U+007F–U+009F)';
// Length counts code points, so an emoji is one character, not two UTF-16 units.
const Name = /* @__PURE__ */ z
  .string(rule(nameMessage))
  .check(
    z.trim(),
    z.refine((name) => name.length > 0 && [...name].length <= NAME_MAX_LENGTH, nameMessage),
    // After trimming: a tab or line break around the name goes, one inside it is refused.
    z.refine((name) => !CONTROL_CHARACTER.test(name), controlMessage),
  )
  .register(z.globalRegistry, {
    description:
      "The animal's name; white space around it is trimmed. No control character (U+0000–U+001F, U+007F–U+009F) after trimming.",
    minLength: 1,
    maxLength: NAME_MAX_LENGTH,
    // The rules for the text as sent: white space around it (JavaScript's `\\s`, what trimming
    // removes), and between, something that is neither white space at its ends nor a control character.
    pattern:
      '^\\s*[^\\s\\u0000-\\u001f\\u007f-\\u009f](?:[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f])?\\s*$',
  });

export const NewPet = /* @__PURE__ */ z
  .strictObject({
    name: Name,
    categoryId: meta(Id, { description: 'Identifier of the category the animal belongs to.' }),
    // Defaulted so that every animal can be found by the status filter that replaces getPet.
    status: z._default(PetStatus, 'available'),
  })
  .register(z.globalRegistry, {
    id: 'NewPet',
    description: 'Request body for adding an animal; `id` is assigned by the service.',
  });
export type NewPet = z.output<typeof NewPet>;

/**
 * Every request body an operation takes, under the id it is registered with: a route entry's
 * `body` is one of these names (shared/api/routes.ts), so a misspelt one is a type error, and the
 * OpenAPI document refers to the schema it names. A name, not the schema: the route table is in
 * every function's bundle, and would then carry every body schema into all of them.
 */
export const bodySchemas = /* @__PURE__ */ (() => ({ NewPet }))();
export type BodySchemaName = keyof typeof bodySchemas;

export const Pet = /* @__PURE__ */ z
  .strictObject({
    id: meta(Id, { description: 'Unique identifier, assigned by the service on creation.' }),
    name: z.string().register(z.globalRegistry, { minLength: 1, maxLength: NAME_MAX_LENGTH, pattern: '\\S' }),
    categoryId: Id,
    status: PetStatus,
  })
  .register(z.globalRegistry, { id: 'Pet', description: 'An animal of the catalogue.' });
export type Pet = z.infer<typeof Pet>;

const Pets = /* @__PURE__ */ z
  .array(Pet)
  .register(z.globalRegistry, { id: 'Pets', description: 'A page of animals.', maxItems: LIMIT_MAX });

/**
 * Every success body an operation answers with, by name: a route entry's `response` is one of
 * these names (shared/api/routes.ts), as for bodySchemas.
 */
export const responseSchemas = /* @__PURE__ */ (() => ({ Pet, Pets }))();
export type ResponseSchemaName = keyof typeof responseSchemas;

/**
 * Every cursor the service issues is base64url, a dot, base64url (shared/domain/cursor.ts), well
 * under this length: anything longer or otherwise spelt is refused before it is decoded.
 */
const CURSOR_MAX_LENGTH = 256;
const CURSOR_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const limitMessage = `must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`;
export const ListPetsQuery = /* @__PURE__ */ (() =>
  z.object({
    limit: z
      ._default(
        z
          .pipe(z.string().check(z.regex(/^[0-9]{1,3}$/, limitMessage)), z.transform(Number))
          .check(z.refine((limit) => limit >= LIMIT_MIN && limit <= LIMIT_MAX, limitMessage)),
        LIMIT_DEFAULT,
      )
      // What clients see in the document: the wire form is a string, the meaning an integer.
      .register(z.globalRegistry, {
        description: `Maximum number of animals returned; ${LIMIT_DEFAULT} when omitted.`,
        type: 'integer',
        minimum: LIMIT_MIN,
        maximum: LIMIT_MAX,
      }),
    status: z.optional(PetStatus).register(z.globalRegistry, { description: 'Only animals with this status.' }),
    cursor: z
      .optional(
        z
          .string()
          .check(
            z.minLength(1, 'must not be empty'),
            z.maxLength(CURSOR_MAX_LENGTH, 'is invalid'),
            z.regex(CURSOR_PATTERN, 'is invalid'),
          ),
      )
      .register(z.globalRegistry, { description: 'Opaque position from the `next` link of the previous page.' }),
  }))();
export type ListPetsQuery = z.output<typeof ListPetsQuery>;

/**
 * Every query an operation reads, by name: a route entry's `query` is one of these names
 * (shared/api/routes.ts), so the fuzzing knows each operation's parameters. A name, as for
 * bodySchemas, so that the route table carries no schema into every bundle.
 */
export const querySchemas = /* @__PURE__ */ (() => ({ ListPetsQuery }))();
export type QuerySchemaName = keyof typeof querySchemas;

const petIdMessage = `must be a positive integer from 1 to ${MAX_ID} without sign or leading zeros`;
export const PetIdParams = /* @__PURE__ */ (() =>
  z.object({
    petId: z
      .pipe(z.string().check(z.regex(/^[1-9][0-9]{0,15}$/, petIdMessage)), z.transform(Number))
      .check(z.refine((id) => id <= MAX_ID, petIdMessage))
      .register(z.globalRegistry, {
        description: 'Identifier of the animal.',
        type: 'integer',
        format: 'int64',
        minimum: 1,
        maximum: MAX_ID,
      }),
  }))();

export const ErrorCode = /* @__PURE__ */ z.enum([
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'TOO_MANY_REQUESTS',
  'CONFLICT',
  'UNPROCESSABLE_ENTITY',
  'INTERNAL_ERROR',
  'BAD_GATEWAY',
  'SERVICE_UNAVAILABLE',
  'GATEWAY_TIMEOUT',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorDetail = /* @__PURE__ */ (() => z.object({ field: z.string(), message: z.string() }))();
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorBody = /* @__PURE__ */ z
  .object({
    code: ErrorCode,
    message: z.string(),
    status: z
      .int()
      .check(z.gte(400), z.lte(599))
      .register(z.globalRegistry, { description: 'The HTTP status code of the response.' }),
    requestId: z.string().register(z.globalRegistry, {
      description: 'Equal to the x-amzn-RequestId response header.',
      format: 'uuid',
      maxLength: 36,
    }),
    details: z
      .optional(z.array(ErrorDetail))
      .register(z.globalRegistry, { description: 'Present on validation errors only.' }),
  })
  .register(z.globalRegistry, { id: 'Error', description: 'Body of every error response.' });
export type ErrorBody = z.infer<typeof ErrorBody>;
