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
  route,
  routes,
} from '../../shared/api/routes.ts';
import { AUTHORIZATION_PATTERN } from '../../shared/domain/api-keys.ts';
import { accessLogFormat } from '../access-log.ts';
import type { StageSettings } from '../stages.ts';
import { removalPolicyOf } from './data.ts';
import { addNotFoundRoutes, NOT_FOUND_RESPONSE } from './not-found.ts';

/** The query parameters a listing page depends on: the stage cache's key (docs/api.md: Listing). */
export const LISTING_CACHE_KEY_PARAMETERS = [
  'method.request.querystring.limit',
  'method.request.querystring.status',
  'method.request.querystring.cursor',
] as const;

/** CDK's method path (`/resource/METHOD`) of the one cached operation. */
const LISTING_METHOD_PATH = `${resourcePath(route('listPets'))}/${route('listPets').method}`;

/**
 * The stage cache when listingCacheTtlSeconds > 0: the smallest cluster (0.5 GB), caching off
 * for every method (with a cluster, API Gateway would otherwise cache every GET, getPet too)
 * and on for the listing alone. API Gateway still runs the authorizer and the usage plan on
 * every request, cached or not; its cache sits before the integration. The key holds no
 * Authorization header: every key sees the same listing. The one header that names the caller's
 * limits, RateLimit-Policy, is then the first caller's: right only while every key of a stage
 * has the stage's limits (one usage plan, keyLimits), which test/cdk/api.test.ts pins.
 */
const stageCacheOptions = ({ listingCacheTtlSeconds: ttlSeconds, throttling }: StageSettings) =>
  ttlSeconds === 0
    ? {}
    : {
        cacheClusterEnabled: true,
        cacheClusterSize: '0.5',
        cachingEnabled: false,
        methodOptions: {
          // An override is a method's whole setting: the stage's throttling, logging and metrics again.
          [LISTING_METHOD_PATH]: {
            cachingEnabled: true,
            cacheTtl: Duration.seconds(ttlSeconds),
            // At rest too (Security Hub's APIGateway.5): a page of animals is not secret, but costs nothing to encrypt.
            cacheDataEncrypted: true,
            throttlingRateLimit: throttling.rateLimit,
            throttlingBurstLimit: throttling.burstLimit,
            loggingLevel: MethodLoggingLevel.ERROR,
            metricsEnabled: true,
            dataTraceEnabled: false,
          },
        },
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
        ...stageCacheOptions(settings),
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

    if (settings.listingCacheTtlSeconds < 0 || settings.listingCacheTtlSeconds > 3600)
      throw new Error(`listingCacheTtlSeconds must be 0 (off) to 3600, not ${settings.listingCacheTtlSeconds}`);
    const cached = settings.listingCacheTtlSeconds > 0;
    for (const r of routes) {
      const cacheKey = cached && r.operationId === 'listPets';
      this.restApi.root.resourceForPath(resourcePath(r)).addMethod(
        r.method,
        // No test-invoke permission: the console's test call would skip the authorizer.
        new LambdaIntegration(functions[r.operationId].function, {
          allowTestInvoke: false,
          ...(cacheKey ? { cacheKeyParameters: [...LISTING_CACHE_KEY_PARAMETERS] } : {}),
        }),
        {
          authorizer: tokenAuthorizer,
          authorizationType: AuthorizationType.CUSTOM,
          operationName: r.operationId,
          apiKeyRequired: true,
          // A cache key parameter must be a request parameter of the method; none is required.
          ...(cacheKey
            ? { requestParameters: Object.fromEntries(LISTING_CACHE_KEY_PARAMETERS.map((name) => [name, false])) }
            : {}),
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
