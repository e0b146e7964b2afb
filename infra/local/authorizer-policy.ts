// The authorizer's policy, evaluated as API Gateway evaluates it (IAM-style): an explicit
// Deny wins, else an Allow must match the method ARN. A cached policy is evaluated on every
// request, against each new method ARN, so each policy is compiled once.
import type { APIGatewayAuthorizerResult } from 'aws-lambda';

type PolicyStatement = { Effect: string; Action?: string | string[]; Resource?: string | string[] };

const compiledPolicies = new WeakMap<APIGatewayAuthorizerResult, (methodArn: string) => boolean>();
export const allows = (result: APIGatewayAuthorizerResult, methodArn: string): boolean => {
  let evaluate = compiledPolicies.get(result);
  if (!evaluate) {
    evaluate = compilePolicy(result);
    compiledPolicies.set(result, evaluate);
  }
  return evaluate(methodArn);
};

const compilePolicy = (result: APIGatewayAuthorizerResult): ((methodArn: string) => boolean) => {
  const patterns = (effect: string) =>
    (result.policyDocument.Statement as PolicyStatement[])
      .filter(
        (s) =>
          s.Effect === effect &&
          s.Resource !== undefined &&
          [s.Action ?? []].flat().some((a) => ['execute-api:Invoke', 'execute-api:*', '*'].includes(a)),
      )
      .flatMap((s) => [s.Resource!].flat())
      .map((pattern) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`));
  const deny = patterns('Deny');
  const allow = patterns('Allow');
  return (methodArn) => !deny.some((p) => p.test(methodArn)) && allow.some((p) => p.test(methodArn));
};

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
