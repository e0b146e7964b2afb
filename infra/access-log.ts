// The access log line, one per request: the CDK stage writes it from `$context`
// variables and the local server writes the same fields. Never a header but the User-Agent.
// The variables are those AWS lists for access logging, chosen for what on-call asks:
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-variables-for-access-logging.html
export const accessLogFields = {
  requestId: '$context.requestId',
  keyId: '$context.authorizer.principalId',
  // When: CloudWatch's @timestamp is the time the line was written; these are the request's own.
  requestTime: '$context.requestTime',
  requestTimeEpoch: '$context.requestTimeEpoch',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  httpMethod: '$context.httpMethod',
  // The path as the client sent it (the stage's name first on the execute-api address), beside the resource it matched.
  path: '$context.path',
  resourcePath: '$context.resourcePath',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  errorResponseType: '$context.error.responseType',
  errorMessage: '$context.error.message',
  // The authorizer's Lambda request id: its line's `function_request_id`. A refused key's 401
  // carries no principalId; this joins it to the authorizer's line, which names the key id.
  authorizerRequestId: '$context.authorizer.requestId',
  authorizerError: '$context.authorizer.error',
  integrationError: '$context.integration.error',
  integrationErrorMessage: '$context.integrationErrorMessage',
} as const;

/** Always a number when API Gateway writes them: unquoted, so Logs Insights sorts and compares them as numbers. */
const NUMERIC_FIELDS: ReadonlySet<keyof typeof accessLogFields> = new Set([
  'status',
  'responseLatency',
  'requestTimeEpoch',
]);

/**
 * The stage's access log format: a JSON object of `accessLogFields`. The rest stay quoted:
 * a variable API Gateway leaves empty ("-"), such as integrationLatency, still makes valid JSON.
 */
export const accessLogFormat = (): string =>
  `{${Object.entries(accessLogFields)
    .map(
      ([name, variable]) =>
        `"${name}":${NUMERIC_FIELDS.has(name as keyof typeof accessLogFields) ? variable : `"${variable}"`}`,
    )
    .join(',')}}`;

export type AccessLogLine = { -readonly [K in keyof typeof accessLogFields]: string | number | null };
