// The format X-Ray accepts (the stand-in for its daemon: tools/harness/xray-daemon.ts): the
// segment document schema of the X-Ray Developer Guide ("AWS X-Ray segment documents",
// https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html), as JSON
// Schema, for every field the guide defines for a subsegment sent on its own and the
// subsegments inside it. What the guide says is free-form (metadata, sql, aws) stays open.
import { Ajv } from 'ajv';

const HEX16 = '^[0-9a-f]{16}$';
const TRACE_ID = '^1-[0-9a-f]{8}-[0-9a-f]{24}$';

const exception = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: HEX16 },
    message: { type: 'string' },
    type: { type: 'string' },
    remote: { type: 'boolean' },
    truncated: { type: 'integer' },
    skipped: { type: 'integer' },
    cause: { type: 'string', pattern: HEX16 },
    stack: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { path: { type: 'string' }, line: { type: 'integer' }, label: { type: 'string' } },
      },
    },
  },
} as const;

/** Fields common to a segment and a subsegment, and a subsegment's own (namespace, precursor_ids). */
const subsegmentFields = {
  name: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\p{L}\\p{N}\\s_.:/%&#=+\\\\@-]+$' },
  id: { type: 'string', pattern: HEX16 },
  start_time: { type: 'number', exclusiveMinimum: 0 },
  end_time: { type: 'number', exclusiveMinimum: 0 },
  in_progress: { type: 'boolean' },
  namespace: { enum: ['aws', 'remote'] },
  precursor_ids: { type: 'array', items: { type: 'string', pattern: HEX16 } },
  http: {
    type: 'object',
    additionalProperties: false,
    properties: {
      request: { type: 'object' },
      response: {
        type: 'object',
        additionalProperties: false,
        properties: { status: { type: 'integer' }, content_length: { type: 'integer' } },
      },
    },
  },
  aws: { type: 'object' },
  sql: { type: 'object' },
  error: { type: 'boolean' },
  throttle: { type: 'boolean' },
  fault: { type: 'boolean' },
  cause: {
    oneOf: [
      { type: 'string', pattern: HEX16 },
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          working_directory: { type: 'string' },
          paths: { type: 'array', items: { type: 'string' } },
          exceptions: { type: 'array', items: exception },
        },
      },
    ],
  },
  annotations: {
    type: 'object',
    propertyNames: { pattern: '^[A-Za-z0-9_]{1,500}$' },
    additionalProperties: { oneOf: [{ type: 'string', maxLength: 1000 }, { type: 'number' }, { type: 'boolean' }] },
  },
  metadata: { type: 'object' },
  subsegments: { type: 'array', items: { $ref: '#/$defs/subsegment' } },
} as const;

const completed = { oneOf: [{ required: ['end_time'] }, { required: ['in_progress'] }] };

/** A subsegment sent on its own: it names its trace and its parent. */
const SUBSEGMENT_DOCUMENT_SCHEMA = {
  $defs: {
    subsegment: {
      type: 'object',
      required: ['name', 'id', 'start_time'],
      ...completed,
      additionalProperties: false,
      properties: subsegmentFields,
    },
  },
  type: 'object',
  required: ['name', 'id', 'trace_id', 'start_time', 'type', 'parent_id'],
  ...completed,
  additionalProperties: false,
  properties: {
    ...subsegmentFields,
    trace_id: { type: 'string', pattern: TRACE_ID },
    type: { const: 'subsegment' },
    parent_id: { type: 'string', pattern: HEX16 },
  },
};

const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(SUBSEGMENT_DOCUMENT_SCHEMA);

/** The schema's complaints about `document`, none if X-Ray accepts it. */
export const segmentDocumentErrors = (document: unknown): string[] =>
  validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
