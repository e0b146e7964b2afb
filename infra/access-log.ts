// The access log line, one per request: the CDK stage writes it from `$context`
// variables and the local server writes the same fields. Never a header.
export const accessLogFields = {
  requestId: '$context.requestId',
  keyId: '$context.authorizer.principalId',
  sourceIp: '$context.identity.sourceIp',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  status: '$context.status',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  errorResponseType: '$context.error.responseType',
} as const;

/** Always a number when API Gateway writes them: unquoted, so Logs Insights sorts and compares them as numbers. */
const NUMERIC_FIELDS: ReadonlySet<keyof typeof accessLogFields> = new Set(['status', 'responseLatency']);

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
