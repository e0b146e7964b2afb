// Reading synthesized CloudFormation: intrinsics rendered as readable strings, the
// grants of a role, and the API's methods with their full resource paths.
import type { CfnTemplate, Resource } from './synth.ts';

/**
 * An intrinsic as a string: `{Ref: X}` → `${X}`, `{Fn::GetAtt: [X, Arn]}` → `${X.Arn}`,
 * `{Fn::Join: ['', parts]}` → the parts joined. Anything else as JSON.
 */
export const render = (value: unknown): string => {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const [[fn, args]] = Object.entries(value) as [[string, any]];
    if (fn === 'Ref') return `\${${args}}`;
    if (fn === 'Fn::GetAtt') return `\${${args[0]}.${args[1]}}`;
    if (fn === 'Fn::Join') return (args[1] as unknown[]).map(render).join(args[0]);
  }
  return JSON.stringify(value);
};

export const resourcesOfType = (template: CfnTemplate, type: string): [string, Resource][] =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

export const resource = (template: CfnTemplate, logicalId: string): Resource => {
  const found = template.Resources[logicalId];
  if (!found) throw new Error(`no resource ${logicalId}`);
  return found;
};

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
  NotAction?: unknown;
  NotResource?: unknown;
}

/** Every statement of every policy document in the template, with where it comes from. */
export const allStatements = (template: CfnTemplate): { logicalId: string; statement: Statement }[] =>
  Object.entries(template.Resources).flatMap(([logicalId, r]) => {
    const documents: { Statement: Statement[] }[] = [];
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy')
      documents.push(r.Properties!.PolicyDocument);
    if (r.Type === 'AWS::IAM::Role')
      documents.push(
        ...((r.Properties!.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).map(
          (p) => p.PolicyDocument,
        ),
      );
    return documents.flatMap((d) => d.Statement.map((statement) => ({ logicalId, statement })));
  });

/**
 * What a role may do, one `Effect action resource` line per pair, sorted: from its
 * inline policies and every AWS::IAM::Policy attached to it.
 */
export const grantsOf = (template: CfnTemplate, roleLogicalId: string): string[] => {
  const attached = resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties!.Roles as unknown[]).some((role) => render(role) === `\${${roleLogicalId}}`),
    )
    .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as Statement[]);
  const inline = (
    (resource(template, roleLogicalId).Properties!.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]
  ).flatMap((p) => p.PolicyDocument.Statement);
  return [...attached, ...inline]
    .flatMap((s) => {
      if (s.NotAction || s.NotResource) throw new Error(`unexpected statement shape: ${JSON.stringify(s)}`);
      // A condition is part of the grant: `… if {"StringEquals":…}`.
      const condition = s.Condition ? ` if ${JSON.stringify(s.Condition)}` : '';
      return [s.Action]
        .flat()
        .flatMap((action) => [s.Resource].flat().map((r) => `${s.Effect} ${action} ${render(r)}${condition}`));
    })
    .sort();
};

export interface ApiMethod {
  logicalId: string;
  httpMethod: string;
  /** The resource path, e.g. `/v1/pets/{petId}`. */
  path: string;
  properties: Record<string, any>;
}

/** The API's methods, with each resource's path rebuilt from its parents. */
const apiMethods = (template: CfnTemplate): ApiMethod[] => {
  const pathOf = (parent: unknown): string => {
    const rendered = render(parent);
    if (rendered.endsWith('.RootResourceId}')) return '';
    const logicalId = rendered.slice(2, -1);
    const { ParentId, PathPart } = resource(template, logicalId).Properties!;
    return `${pathOf(ParentId)}/${PathPart}`;
  };
  return resourcesOfType(template, 'AWS::ApiGateway::Method').map(([logicalId, method]) => ({
    logicalId,
    httpMethod: method.Properties!.HttpMethod,
    path: pathOf(method.Properties!.ResourceId),
    properties: method.Properties!,
  }));
};

/** The methods that call a function (the route table's); the rest are the catch-all 404s (not-found.ts). */
export const routeMethods = (template: CfnTemplate): ApiMethod[] =>
  apiMethods(template).filter((m) => m.properties.Integration?.Type === 'AWS_PROXY');

/** The catch-all methods: ANY, no authorizer, a mock integration answering 404. */
export const catchAllMethods = (template: CfnTemplate): ApiMethod[] =>
  apiMethods(template).filter((m) => m.properties.Integration?.Type === 'MOCK');
