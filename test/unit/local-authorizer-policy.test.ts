// The local gateway's evaluation of an authorizer's policy, as API Gateway evaluates it.
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { allows } from '../../infra/local/authorizer-policy.ts';

const ARN = 'arn:aws:execute-api:local:000000000000:local/local';
const policy = (...Statement: Array<{ Effect: string; Action?: string; Resource?: string | string[] }>) =>
  ({ principalId: 'key_Test', policyDocument: { Version: '2012-10-17', Statement } }) as APIGatewayAuthorizerResult;

describe('the authorizer policy', () => {
  it('allows what an Allow matches, wildcards included, and nothing else', () => {
    const p = policy({ Effect: 'Allow', Action: 'execute-api:Invoke', Resource: `${ARN}/GET/*` });
    expect(allows(p, `${ARN}/GET/v1/pets`)).toBe(true);
    expect(allows(p, `${ARN}/GET/v1/pets/1`)).toBe(true); // the same policy again: compiled once
    expect(allows(p, `${ARN}/POST/v1/pets`)).toBe(false);
  });

  it('lets an explicit Deny win over an Allow', () => {
    const p = policy(
      { Effect: 'Allow', Action: 'execute-api:Invoke', Resource: `${ARN}/*` },
      { Effect: 'Deny', Action: 'execute-api:Invoke', Resource: [`${ARN}/POST/v1/pets`] },
    );
    expect(allows(p, `${ARN}/GET/v1/pets`)).toBe(true);
    expect(allows(p, `${ARN}/POST/v1/pets`)).toBe(false);
  });

  it('ignores statements about other actions, and takes dots in a resource literally', () => {
    expect(allows(policy({ Effect: 'Allow', Action: 's3:GetObject', Resource: '*' }), `${ARN}/GET/v1/pets`)).toBe(
      false,
    );
    expect(allows(policy({ Effect: 'Allow', Action: '*', Resource: `${ARN}/GET/v1.pets` }), `${ARN}/GET/v1/pets`)).toBe(
      false,
    );
  });
});
