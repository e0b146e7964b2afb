// Every path and method that is not one of the route table's answers 404 NOT_FOUND, whatever
// Authorization header it carries (docs/api.md, "Authentication"). Why routes and not a gateway response:
// for a path the API lacks, API Gateway answers MISSING_AUTHENTICATION_TOKEN, but only when
// the request has no Authorization header; with one (as every client of this API sends), it
// reads the header as an AWS signature and answers 403 "… not a valid key=value pair (missing
// equal-sign) in Authorization header", which re-mapping MISSING_AUTHENTICATION_TOKEN does not
// change (API Gateway's developer guide, "Gateway response types"; AWS re:Post and several
// issue trackers report the same). So no request is left without a method: each resource
// gets an ANY method and a greedy `{proxy+}` child with one, both without authorizer, whose
// mock integration answers the very body of the MISSING_AUTHENTICATION_TOKEN response. API
// Gateway prefers a resource's own method to ANY and a named resource to `{proxy+}`, so the
// route table's methods keep their authorizer and functions.
import { Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  ContentHandling,
  type IResource,
  MockIntegration,
  PassthroughBehavior,
  Resource,
} from 'aws-cdk-lib/aws-apigateway';
import { type GatewayResponseType, gatewayResponses } from '../../shared/api/gateway-responses.ts';

/** The gateway response whose status and body the catch-all answers with (404 NOT_FOUND). */
export const NOT_FOUND_RESPONSE: GatewayResponseType = 'MISSING_AUTHENTICATION_TOKEN';

const isVariable = (pathPart: string) => pathPart.startsWith('{');

const childrenOf = (resource: IResource): Resource[] =>
  resource.node.children.filter((child): child is Resource => child instanceof Resource);

/**
 * Adds the catch-all under `root`, after every route's method exists. `body` is the response
 * template of NOT_FOUND_RESPONSE (api.ts renders it, as for the gateway responses).
 */
export const addNotFoundRoutes = (root: IResource, body: string): void => {
  const status = String(gatewayResponses[NOT_FOUND_RESPONSE].status);
  const integration = new MockIntegration({
    // Whatever the request's Content-Type: no 415 from a missing request template.
    passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
    // The API's binary media type `*/*` makes every request body binary; a mapping template
    // applies to text only, so without a conversion API Gateway cannot apply the request
    // template and answers 500 (API_CONFIGURATION_ERROR "Unable to transform request"),
    // which would read as our fault on the 5xx alarms. Both directions convert to text.
    contentHandling: ContentHandling.CONVERT_TO_TEXT,
    requestTemplates: { 'application/json': `{"statusCode": ${status}}` },
    // No selection pattern: the one response for every outcome.
    integrationResponses: [
      {
        statusCode: status,
        contentHandling: ContentHandling.CONVERT_TO_TEXT,
        responseParameters: { 'method.response.header.Content-Type': "'application/json'" },
        responseTemplates: { 'application/json': body },
      },
    ],
  });
  const options = {
    authorizationType: AuthorizationType.NONE,
    methodResponses: [{ statusCode: status, responseParameters: { 'method.response.header.Content-Type': true } }],
  };

  const visit = (resource: IResource) => {
    const children = childrenOf(resource);
    // A resource may have one variable child only; a variable child already takes every name.
    const proxy = children.some((child) => isVariable(child.path.split('/').at(-1) ?? ''))
      ? undefined
      : resource.addResource('{proxy+}');
    for (const child of children) visit(child);
    resource.addMethod('ANY', integration, options);
    proxy?.addMethod('ANY', integration, options);
  };
  visit(root);

  Validations.of(root).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'Only the catch-all ANY methods (infra/constructs/not-found.ts) have no authorizer: they reach no function and ' +
      'answer a fixed 404 NOT_FOUND from a mock integration, as the contract requires before authentication.',
  });
};
