// One of the stack's read-key custom resources as CloudFormation drives it: the events it sends
// (Create, Update with the old properties, Delete; each with a presigned URL for the answer) and
// the answer it reads back ("Custom resource request types", "Custom resource response objects",
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-responses.html).
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { ReadKeyProperties } from '../../functions/read-key.ts';
import { keysTable } from '../../shared/dynamodb/tables.ts';

export interface ReadKeyResourceOptions {
  /** Where the stand-in for Secrets Manager and for the presigned answer URL listens. */
  readonly endpoint: string;
  /** The answers CloudFormation was sent, by request id. */
  readonly answers: ReadonlyMap<string, Record<string, any>>;
  readonly handler: (event: CloudFormationCustomResourceEvent) => Promise<void>;
  /** The key a secret holds now. */
  readonly secret: (arn: string) => string | undefined;
}

let secrets = 0;

export const readKeyResource = ({ endpoint, answers, handler, secret: current }: ReadKeyResourceOptions) => {
  const secret = `arn:aws:secretsmanager:eu-west-1:123456789012:secret:PetStore-test/key-${++secrets}`;
  const properties = (
    generation: number,
    label = 'PetStore-test release probe (made by the stack)',
    scope: ReadKeyProperties['Scope'] = 'read',
  ): ReadKeyProperties => ({
    TableName: keysTable.name,
    SecretArn: secret,
    Label: label,
    Generation: String(generation),
    Scope: scope,
  });
  let requests = 0;
  const event = (
    request:
      | { RequestType: 'Create'; props: ReadKeyProperties }
      | { RequestType: 'Update'; PhysicalResourceId: string; props: ReadKeyProperties; old: ReadKeyProperties }
      | { RequestType: 'Delete'; PhysicalResourceId: string; props: ReadKeyProperties },
  ) => {
    const RequestId = `${secrets}-request-${++requests}`;
    const { props, ...rest } = request;
    return {
      ...rest,
      ...('old' in request && { old: undefined, OldResourceProperties: { ServiceToken: 'minter', ...request.old } }),
      ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:minter',
      ResponseURL: `${endpoint}/cloudformation/${RequestId}`,
      StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/PetStore-test/1',
      RequestId,
      LogicalResourceId: 'ReadKeysProbeKey',
      ResourceType: 'Custom::PetStoreReadKey',
      ResourceProperties: { ServiceToken: 'minter', ...props },
    } as unknown as CloudFormationCustomResourceEvent;
  };
  /** Delivers `e` (again, if Lambda retries it) and returns the answer CloudFormation got. */
  const deliver = async (e: CloudFormationCustomResourceEvent) => {
    await handler(e);
    return answers.get(e.RequestId)!;
  };
  const send = (...args: Parameters<typeof event>) => deliver(event(...args));
  return { secret, properties, event, deliver, send, key: () => current(secret)! };
};
