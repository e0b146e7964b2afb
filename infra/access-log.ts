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

export type AccessLogLine = { -readonly [K in keyof typeof accessLogFields]: string | number | null };
