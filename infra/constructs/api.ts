// The REST API of one stage, generated from the single sources: routes from the route
// table, the authorizer's identity validation from AUTHORIZATION_PATTERN, the error
// bodies API Gateway writes itself from gatewayResponses, the access log from
// accessLogFields. The local server reads the same sources.
import { Duration, Fn, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  type Stage,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type GatewayResponseType, gatewayResponses } from '../../shared/api/gateway-responses.ts';
import {
  API_VERSION_PATH,
  BINARY_MEDIA_TYPES,
  type OperationId,
  resourcePath,
  routes,
} from '../../shared/api/routes.ts';
import { AUTHORIZATION_PATTERN } from '../../shared/domain/api-keys.ts';
import { accessLogFormat } from '../access-log.ts';
import type { StageSettings } from '../stages.ts';
import { removalPolicyOf } from './data.ts';
import { addNotFoundRoutes, NOT_FOUND_RESPONSE } from './not-found.ts';

/**
 * No stage cache for the listing (listingCacheTtlSeconds must be 0): API Gateway cannot key one
 * on what the listing answers by. A query parameter given twice is one value to it ("If the same
 * key-value pair is specified multiple times, only the last value" is in queryStringParameters:
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html),
 * a multi-value parameter cannot be a cache key (API Gateway answers "Invalid mapping expression
 * specified: method.request.multivaluequerystring...":
 * https://github.com/DianaIonita/serverless-api-gateway-caching/issues/70), and the cache keeps the
 * integration's answer whatever its status (https://stackoverflow.com/questions/45883323). So
 * `?limit=5&limit=5`, a 400 by the contract (docs/api.md), would be answered to every `?limit=5`
 * (and `?status=available&status=available` to every first page of available animals) for the TTL,
 * by any key holder's one request; nothing in API Gateway runs before its cache to refuse it
 * with the contract's error (the TOKEN authorizer sees only the header). docs/capacity.md says
 * what stands in for it.
 */
const checkListingCache = ({ listingCacheTtlSeconds: ttlSeconds }: StageSettings) => {
  if (ttlSeconds !== 0)
    throw new Error(
      `listingCacheTtlSeconds must be 0, not ${ttlSeconds}: API Gateway's stage cache keys a repeated query ` +
        'parameter by its last value and keeps 400s, so a listing with a repeated parameter would poison the ' +
        'cached answer of the same listing without it (infra/constructs/api.ts, docs/capacity.md).',
    );
};

export interface ApiProps {
  readonly settings: StageSettings;
  /** Each route's function, by operationId. */
  readonly functions: Readonly<Record<OperationId, { readonly function: IFunction }>>;
  readonly authorizer: IFunction;
}

/** The Error body as an API Gateway response template (`messageString` comes already quoted). */
const gatewayErrorTemplate = (type: GatewayResponseType): string => {
  const { status, code, message } = gatewayResponses[type];
  const messageValue = message === undefined ? '$context.error.messageString' : JSON.stringify(message);
  return `{"code":"${code}","message":${messageValue},"status":${status},"requestId":"$context.requestId"}`;
};

/** A gateway response header value is a mapping expression: a literal is single-quoted. */
const literal = (value: string): string => {
  if (value.includes("'")) throw new Error(`a gateway response header cannot hold a quote: ${value}`);
  return `'${value}'`;
};

export class Api extends Construct {
  readonly restApi: RestApi;
  readonly stage: Stage;
  readonly accessLogGroup: LogGroup;
  /** Where API Gateway writes its ERROR-level execution logs for the stage. */
  readonly executionLogGroup: LogGroup;
  /** The base address clients use: `https://…/{stage}/v1`. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, { settings, functions, authorizer }: ApiProps) {
    super(scope, id);
    const logRetention = { retention: settings.logRetentionDays, removalPolicy: removalPolicyOf(settings) };
    this.accessLogGroup = new LogGroup(this, 'AccessLogs', logRetention);

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `petstore-${settings.stage}`,
      description: `Pet Store API, stage ${settings.stage}`,
      endpointTypes: [EndpointType.REGIONAL],
      // The role API Gateway logs with is one per account and region, shared by every API
      // in it: two stage stacks must not both own it. Set once by hand (README, Deploying).
      cloudWatchRole: false,
      failOnWarnings: true,
      // Bodies reach the functions as the client's bytes, so that invalid UTF-8 is refused, not stored as U+FFFD.
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      // Each key's limits: the authorizer names its API key (usageIdentifierKey), whose usage plan applies.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        stageName: settings.stage,
        throttlingRateLimit: settings.throttling.rateLimit,
        throttlingBurstLimit: settings.throttling.burstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: AccessLogFormat.custom(accessLogFormat()),
        loggingLevel: MethodLoggingLevel.ERROR,
        // Data tracing would log request and response bodies and headers: keys included.
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
      },
    });
    // RestApi adds an output of its own; the stack's BaseUrl (ending in /v1) is the one to use.
    this.restApi.node.tryRemoveChild('Endpoint');
    this.stage = this.restApi.deploymentStage;
    this.baseUrl = this.stage.urlForPath(API_VERSION_PATH);

    // API Gateway would create this group itself on the first error, keeping logs forever.
    this.executionLogGroup = new LogGroup(this, 'ExecutionLogs', {
      ...logRetention,
      logGroupName: Fn.join('', ['API-Gateway-Execution-Logs_', this.restApi.restApiId, '/', settings.stage]),
    });
    this.stage.node.addDependency(this.executionLogGroup);

    const tokenAuthorizer = new TokenAuthorizer(this, 'BearerKey', {
      handler: authorizer,
      identitySource: IdentitySource.header('Authorization'),
      // Anything but `Bearer pet_…` is a 401 without invoking (or paying for) the function.
      validationRegex: AUTHORIZATION_PATTERN,
      resultsCacheTtl: Duration.seconds(settings.authorizerCacheTtlSeconds),
    });

    checkListingCache(settings);
    for (const r of routes) {
      this.restApi.root.resourceForPath(resourcePath(r)).addMethod(
        r.method,
        // No test-invoke permission: the console's test call would skip the authorizer.
        new LambdaIntegration(functions[r.operationId].function, { allowTestInvoke: false }),
        {
          authorizer: tokenAuthorizer,
          authorizationType: AuthorizationType.CUSTOM,
          operationName: r.operationId,
          apiKeyRequired: true,
        },
      );
    }

    // After the routes: every other path and method is a 404, whatever its Authorization header.
    addNotFoundRoutes(this.restApi.root, gatewayErrorTemplate(NOT_FOUND_RESPONSE));

    for (const [type, { status, headers }] of Object.entries(gatewayResponses)) {
      this.restApi.addGatewayResponse(type, {
        type: ResponseType.of(type),
        statusCode: String(status),
        responseHeaders: Object.fromEntries(
          Object.entries({ 'Content-Type': 'application/json', ...headers }).map(([name, value]) => [
            name,
            literal(value),
          ]),
        ),
        templates: { 'application/json': gatewayErrorTemplate(type as GatewayResponseType) },
      });
    }

    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        "Every function validates its own input against the shared zod schemas and answers with the contract's " +
        '400 body naming each bad field; an API Gateway model would answer first with a different, less precise body.',
    });
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are services holding API keys, not users: every route has the TOKEN authorizer, which accepts only ' +
        'an unrevoked key (stored as its SHA-256 hash) and refuses the rest with a 401; the catch-all 404 methods ' +
        '(not-found.ts) reach nothing. There is no user pool to use.',
    });
    Validations.of(this.stage).acknowledge({
      id: 'Serverless-APIGWStructuredLogging',
      reason:
        'The access log format is a JSON object (infra/access-log.ts); its numeric fields ($context.status, ' +
        '$context.responseLatency) are left unquoted so that Logs Insights compares them as numbers, which makes the ' +
        'format string itself, before API Gateway fills it in, not parse as JSON.',
    });
    Validations.of(this.stage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'No method answers without a valid key (authorizer with identity validation) and the stage is throttled; ' +
        'the API takes small JSON bodies only. A WAF web ACL is an account-level choice, to add when abuse is seen.',
    });
  }
}
