// What a sampled invocation sends to X-Ray, written here rather than by Powertools Tracer and the
// X-Ray SDK under it: one subsegment for the handler (annotated operation, keyId, requestId,
// ColdStart, Service), with one subsegment per DynamoDB call inside (table, operation, retries,
// status, request id, and the throttle, error and fault flags), sent in one UDP datagram to the
// X-Ray daemon Lambda runs beside a function with active tracing. Lambda's own segments (the
// service and the function, whose id is the `Parent` of the invocation's trace header) hold it.
//
// Why not the Tracer: the X-Ray SDK creates a cls-hooked namespace when it is imported, which puts
// async hooks on every promise of the process, sampled or not (aws/aws-xray-sdk-node#420), and
// its import is part of every cold start. A Lambda environment runs one invocation at a time (on-demand:
// the stack uses no managed instances), so the open trace is a module variable and needs no async
// context at all; an unsampled invocation reads its trace header and does nothing else. The figure
// that pays for this file: docs/performance.md, "Functions alone: per invocation and cold start"
// (CPU per invocation and import + first invocation, Tracer against this emitter).
// test/integration/tracing.test.ts captures what sampled invocations send, holds each document to
// the X-Ray segment document schema (test/support/xray.ts) and checks its place in the trace;
// test/cdk/bundle-tracing.test.ts does the same for a deployed bundle.
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { getXrayTraceDataFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isThrottlingError } from '@smithy/core/retry';

/** A subsegment as the X-Ray segment document format defines it (the fields we send). */
export interface Subsegment {
  id: string;
  name: string;
  start_time: number;
  end_time?: number;
  namespace?: 'aws' | 'remote';
  annotations?: Record<string, string | number | boolean>;
  aws?: { operation: string; region?: string; table_name?: string; request_id?: string; retries: number };
  http?: { response: { status: number } };
  error?: true;
  throttle?: true;
  fault?: true;
  cause?: { exceptions: { id: string; message: string; type: string; remote?: true }[] };
  subsegments?: Subsegment[];
}

/** The document sent for an invocation: its handler subsegment, placed in Lambda's trace. */
export interface SubsegmentDocument extends Subsegment {
  type: 'subsegment';
  trace_id: string;
  parent_id: string;
}

/** POWERTOOLS_TRACE_ENABLED, Powertools' own switch, which the stack sets per stage (infra/stages.ts). */
const ENABLED = process.env.POWERTOOLS_TRACE_ENABLED === 'true';
const HANDLER_NAME = `## ${process.env._HANDLER ?? 'index.handler'}`;
const SERVICE = process.env.POWERTOOLS_SERVICE_NAME;
const REGION = process.env.AWS_REGION;

/**
 * A segment's or subsegment's id, 64 random bits as 16 hex digits, cut from one draw of the
 * CSPRNG per 512 ids (as Node's randomUUID caches its entropy): a `randomBytes(8)` per id cost
 * a sampled getPet, which makes two, ~14 % of its trace's CPU (docs/performance.md, "Functions
 * alone": CPU profiles of the bench's processes).
 */
const ID_BYTES = 8;
let entropy = Buffer.alloc(0);
let taken = 0;
const newId = (): string => {
  if (taken === entropy.length) {
    entropy = randomBytes(512 * ID_BYTES);
    taken = 0;
  }
  taken += ID_BYTES;
  return entropy.toString('hex', taken - ID_BYTES, taken);
};
/** Fixed for the process: read once, not through its getter on every timestamp. */
const TIME_ORIGIN = performance.timeOrigin;
/** Epoch seconds, to the microsecond (the format's floating-point seconds). */
const now = (): number => Math.round((TIME_ORIGIN + performance.now()) * 1000) / 1e6;

let open: SubsegmentDocument | undefined;

/** The invocation's trace header (Root, Parent, Sampled), as Powertools reads it; undefined when there is none. */
export type TraceHeader = ReturnType<typeof getXrayTraceDataFromEnv>;

/**
 * Reads the invocation's trace header, once: Powertools' reader (Lambda's InvokeStore, else
 * `_X_AMZN_TRACE_ID`), whose environment read and parse were ~1 µs each time, and the summary line
 * read it a second time (docs/performance.md, "Where a function's CPU over the floor goes").
 * Opens the invocation's handler subsegment when Lambda sampled it; otherwise nothing is kept.
 * Returns the header, for the invocation's lines (its Root is their `xray_trace_id`).
 */
export const beginTrace = (): TraceHeader => {
  open = undefined;
  const header = getXrayTraceDataFromEnv();
  if (!ENABLED || header?.Sampled !== '1' || !header.Root || !header.Parent) return header;
  open = {
    type: 'subsegment',
    id: newId(),
    name: HANDLER_NAME,
    trace_id: header.Root,
    parent_id: header.Parent,
    start_time: now(),
    annotations: SERVICE ? { Service: SERVICE } : {},
    subsegments: [],
  };
  return header;
};

/** Whether the invocation running has a trace open (Lambda sampled it). */
export const isTraced = (): boolean => open !== undefined;

/** Indexed annotations of the open trace (a no-op when the invocation is not sampled). */
export const annotate = (annotations: Record<string, string | number | boolean | undefined>): void => {
  if (!open) return;
  for (const [key, value] of Object.entries(annotations)) if (value !== undefined) open.annotations![key] = value;
};

const exceptionOf = (error: unknown, remote: boolean) => {
  const { name = 'Error', message = String(error) } = (error ?? {}) as Partial<Error>;
  return { id: newId(), message, type: name, ...(remote && { remote: true as const }) };
};

/** 5xx a fault, 4xx an error (a throttle is both an error and flagged a throttle), as X-Ray reads them. */
const flag = (subsegment: Subsegment, status: number | undefined): void => {
  if (status === undefined) return;
  if (status >= 500) subsegment.fault = true;
  else if (status >= 400) subsegment.error = true;
};

let socket: Socket | undefined;
let daemon: { host: string; port: number } | undefined;
const daemonAddress = (): { host: string; port: number } => {
  // "host:port", or "tcp:host:port udp:host:port": segments go over UDP.
  const setting = process.env.AWS_XRAY_DAEMON_ADDRESS ?? '127.0.0.1:2000';
  const udp = setting.split(' ').find((part) => part.startsWith('udp:')) ?? setting;
  const [host = '127.0.0.1', port = '2000'] = udp.replace(/^udp:/, '').split(':');
  return { host, port: Number(port) };
};

/**
 * Sends the document and returns without waiting for dgram's callback, as the X-Ray SDK's emitter
 * does: libuv hands a datagram to the kernel as it is sent when nothing is queued before it, and
 * dgram's own steps (the first send's bind, the address's lookup) run on process.nextTick, so it
 * has left before the runtime answers on a later turn of the loop, after which Lambda may freeze
 * the environment (test/integration/trace-before-freeze.test.ts). Waiting cost a sampled getPet
 * ~0.015 ms of CPU, a turn of the loop (docs/performance.md).
 */
const send = (document: SubsegmentDocument): void => {
  if (!socket) {
    socket = createSocket('udp4').unref();
    // A lost datagram loses a trace, never an invocation.
    socket.on('error', () => {});
    // Read once, with the socket: Lambda sets it before the first invocation and never changes it.
    daemon = daemonAddress();
  }
  const { host, port } = daemon!;
  const datagram = `{"format":"json","version":1}\n${JSON.stringify(document)}`;
  socket!.send(datagram, port, host);
};

/**
 * Closes and sends the invocation's handler subsegment: flagged by the status the function
 * answered (HTTP) or by the error it ended with, whose type and message make the cause (the stack
 * is in the fault's log line; reading it here would map it through the source maps again).
 */
export const endTrace = (outcome: { status?: number | undefined; error?: unknown }): void => {
  const document = open;
  open = undefined;
  if (!document) return;
  document.end_time = now();
  flag(document, outcome.status);
  if (outcome.error !== undefined) {
    if (outcome.status === undefined) document.fault = true;
    document.cause = { exceptions: [exceptionOf(outcome.error, false)] };
  }
  // Left out of the JSON when empty; set undefined rather than deleted, which would slow the object down.
  if (document.subsegments!.length === 0) document.subsegments = undefined;
  send(document);
};

interface CallMetadata {
  $metadata?: { httpStatusCode?: number; requestId?: string; attempts?: number };
}

/**
 * A DynamoDB call of a sampled invocation as a subsegment of its handler's, at the `build` step
 * (where the X-Ray SDK puts its own): outside the retries, so one subsegment per call, with their
 * count. Unsampled, the call goes straight on.
 */
export const traceDynamoDBCalls = (client: DynamoDBClient): DynamoDBClient => {
  // With the stage's tracing off no invocation is ever traced: no step on every call to find that out.
  if (!ENABLED) return client;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const parent = open;
      if (!parent) return next(args);
      const input = args.input as { TableName?: string };
      const subsegment: Subsegment = {
        id: newId(),
        name: 'DynamoDB',
        namespace: 'aws',
        start_time: now(),
        aws: {
          operation: (context.commandName ?? 'Command').replace(/Command$/, ''),
          ...(REGION && { region: REGION }),
          ...(input.TableName && { table_name: input.TableName }),
          retries: 0,
        },
      };
      parent.subsegments!.push(subsegment);
      const record = (metadata: CallMetadata['$metadata'], error?: unknown) => {
        subsegment.end_time = now();
        const { httpStatusCode, requestId, attempts = 1 } = metadata ?? {};
        subsegment.aws!.retries = attempts - 1;
        if (requestId) subsegment.aws!.request_id = requestId;
        if (httpStatusCode) subsegment.http = { response: { status: httpStatusCode } };
        flag(subsegment, httpStatusCode);
        if (error === undefined) return;
        if (isThrottlingError(error as Parameters<typeof isThrottlingError>[0])) {
          subsegment.throttle = true;
          subsegment.error = true;
        }
        // No answer at all (a timeout, a reset connection): the call failed on our side of it.
        if (!httpStatusCode) subsegment.fault = true;
        subsegment.cause = { exceptions: [exceptionOf(error, httpStatusCode !== undefined)] };
      };
      try {
        const result = await next(args);
        record((result.output as CallMetadata).$metadata);
        return result;
      } catch (error) {
        record((error as CallMetadata).$metadata, error);
        throw error;
      }
    },
    { step: 'build', name: 'petstoreXRaySubsegment' },
  );
  return client;
};
