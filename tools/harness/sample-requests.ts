// The sample requests (shared/release-checks/samples.ts: for each operation of the route table,
// a request it answers, one it refuses with a 400 and one it answers 404 where it has a path
// parameter) as what tests and benchmarks send: HTTP requests and API Gateway's proxy events.
import { randomUUID } from 'node:crypto';
import { API_VERSION_PATH, type OperationId, route } from '../../shared/api/routes.ts';
import { proxyEvent } from '../../shared/lambda/proxy-event.ts';
import { type SampleRequest, samplePath } from '../../shared/release-checks/samples.ts';
import type { RequestSpec } from './http-client.ts';

export { type SampleRequest, sampleRequests } from '../../shared/release-checks/samples.ts';

/**
 * A sample as an HTTP request (http-client.ts's spec), its path below the version path
 * (`/pets/1`) or, with `versioned`, from the root (`/v1/pets/1`).
 */
export const sampleHttpRequest = (
  operationId: OperationId,
  sample: SampleRequest,
  options: { versioned?: boolean; headers?: Record<string, string> } = {},
): RequestSpec & { body?: string } => {
  const r = route(operationId);
  const path = samplePath(r, sample);
  return {
    method: r.method,
    path: options.versioned ? `${API_VERSION_PATH}${path}` : path,
    headers: {
      ...(sample.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...options.headers,
    },
    ...(sample.body === undefined ? {} : { body: JSON.stringify(sample.body) }),
  };
};

const STAGE = 'staging';
const DOMAIN = 'abc123.execute-api.us-east-1.amazonaws.com';

/**
 * A sample as the REST proxy event API Gateway gives the operation's function on a deployed
 * stage (shared/lambda/proxy-event.ts, the local gateway's builder), with a regional stage's
 * headers besides `headers`, from the caller the authorizer named `keyId`.
 */
export const sampleEvent = (
  operationId: OperationId,
  sample: SampleRequest,
  { keyId = 'key_Sample0001', headers = {} }: { keyId?: string; headers?: Record<string, string> } = {},
) => {
  const spec = sampleHttpRequest(operationId, sample, {
    versioned: true,
    headers: {
      Accept: '*/*',
      Authorization: 'Bearer (not read by the function)',
      Host: DOMAIN,
      'User-Agent': 'curl/8.5.0',
      'X-Amzn-Trace-Id': 'Root=1-67891233-abcdef012345678912345678',
      'X-Forwarded-For': '203.0.113.7',
      'X-Forwarded-Port': '443',
      'X-Forwarded-Proto': 'https',
      ...headers,
    },
  });
  const body = spec.body ?? null;
  const sent = { ...spec.headers, ...(body !== null && { 'Content-Length': String(Buffer.byteLength(body)) }) };
  return proxyEvent(
    {
      ...{ url: new URL(spec.path, `https://${DOMAIN}`), headers: Object.entries(sent), body },
      ...{ isBase64Encoded: false, sourceIp: '203.0.113.7', protocol: 'HTTP/1.1', domainName: DOMAIN },
    },
    { route: route(operationId), pathParameters: { ...sample.pathParameters } },
    {
      ...{ accountId: '000000000000', apiId: 'abc123', stage: STAGE, requestId: randomUUID() },
      ...{ identity: { principalId: keyId, context: { keyId } }, clientPathPrefix: `/${STAGE}` },
    },
  );
};
