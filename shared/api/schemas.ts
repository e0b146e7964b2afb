// The shapes of the API, once: request validation, the TypeScript types and the
// OpenAPI document (tools/openapi.ts) all come from these schemas.
// A namespace import: esbuild then keeps only what is used. `import { z }` drags in every
// locale zod ships (~370 KB of each function's bundle; see docs/performance.md).
import * as z from 'zod';

// No generated parsers (zod's JIT compiles each object schema with `new Function` on its
// first parse): for these small shapes interpreting is faster, first parse (1.7 against
// 2.5 ms, which a cold start waits for) and every parse after (4.4 against 5.1 µs).
z.config({ jitless: true });

// Each schema below is marked pure: building one only registers its metadata (for the OpenAPI
// document, which imports every schema), so esbuild may drop from a Lambda bundle the schemas
// its function never uses, and a cold start does not build them (measured: each function's
// import 3–5 ms faster, median of 21 fresh processes).

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

const idMessage = `must be an integer from 1 to ${MAX_ID}`;
const Id = /* @__PURE__ */ z.int(rule(idMessage)).min(1, idMessage).max(MAX_ID, idMessage);

export const PetStatus = /* @__PURE__ */ z
  .enum(['available', 'pending', 'sold'], rule('must be one of available, pending, sold'))
  .meta({ id: 'PetStatus', description: 'Availability of the animal.' });
export type PetStatus = z.infer<typeof PetStatus>;

const nameMessage = `must be a string of 1 to ${NAME_MAX_LENGTH} characters`;
// Length counts code points, so an emoji is one character, not two UTF-16 units.
const Name = /* @__PURE__ */ z
  .string(rule(nameMessage))
  .trim()
  .refine((name) => name.length > 0 && [...name].length <= NAME_MAX_LENGTH, nameMessage)
  .meta({
    description: "The animal's name; white space around it is trimmed.",
    minLength: 1,
    maxLength: NAME_MAX_LENGTH,
  });

export const NewPet = /* @__PURE__ */ z
  .strictObject({
    name: Name,
    categoryId: Id.meta({ description: 'Identifier of the category the animal belongs to.' }),
    // Defaulted so that every animal can be found by the status filter that replaces getPet.
    status: PetStatus.default('available'),
  })
  .meta({ id: 'NewPet', description: 'Request body for adding an animal; `id` is assigned by the service.' });
export type NewPet = z.output<typeof NewPet>;

export const Pet = /* @__PURE__ */ z
  .strictObject({
    id: Id.meta({ description: 'Unique identifier, assigned by the service on creation.' }),
    name: z.string(),
    categoryId: Id,
    status: PetStatus,
  })
  .meta({ id: 'Pet', description: 'An animal of the catalogue.' });
export type Pet = z.infer<typeof Pet>;

export const Pets = /* @__PURE__ */ z.array(Pet).meta({ id: 'Pets', description: 'A page of animals.' });

const limitMessage = `must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`;
export const ListPetsQuery = /* @__PURE__ */ z.object({
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, limitMessage)
    .transform(Number)
    .refine((limit) => limit >= LIMIT_MIN && limit <= LIMIT_MAX, limitMessage)
    .default(LIMIT_DEFAULT)
    // What clients see in the document: the wire form is a string, the meaning an integer.
    .meta({
      description: `Maximum number of animals returned; ${LIMIT_DEFAULT} when omitted.`,
      type: 'integer',
      minimum: LIMIT_MIN,
      maximum: LIMIT_MAX,
    }),
  status: PetStatus.optional().meta({ description: 'Only animals with this status.' }),
  cursor: z
    .string()
    .min(1, 'must not be empty')
    .optional()
    .meta({ description: 'Opaque position from the `next` link of the previous page.' }),
});
export type ListPetsQuery = z.output<typeof ListPetsQuery>;

const petIdMessage = `must be a positive integer from 1 to ${MAX_ID} without sign or leading zeros`;
export const PetIdParams = /* @__PURE__ */ z.object({
  petId: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, petIdMessage)
    .transform(Number)
    .refine((id) => id <= MAX_ID, petIdMessage)
    .meta({ description: 'Identifier of the animal.', type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID }),
});

export const ErrorCode = /* @__PURE__ */ z.enum([
  'BAD_REQUEST',
  'UNAUTHORIZED',
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

export const ErrorDetail = /* @__PURE__ */ z.object({ field: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorBody = /* @__PURE__ */ z
  .object({
    code: ErrorCode,
    message: z.string(),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status code of the response.' }),
    requestId: z.string().meta({ description: 'Equal to the x-amzn-RequestId response header.' }),
    details: z.array(ErrorDetail).optional().meta({ description: 'Present on validation errors only.' }),
  })
  .meta({ id: 'Error', description: 'Body of every error response.' });
export type ErrorBody = z.infer<typeof ErrorBody>;
