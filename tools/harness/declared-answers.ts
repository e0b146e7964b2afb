// What the OpenAPI document declares of an answer, so that the clients the tests drive the service
// with know, from the document rather than a list of their own, which answers carry no body.
import { matchRoute } from '../../infra/local/route-matcher.ts';
import { openApiDocument } from '../openapi.ts';

interface Operation {
  responses: Record<string, { content?: unknown }>;
}
let paths: Record<string, Record<string, Operation>> | undefined;

/**
 * Whether the answer of `status` to `method` `path` (from the stage's root: `/v1/pets/1`) is
 * declared without content (a 204): then it has no body and no Content-Type. The gateway's own
 * answers (no route) and undeclared statuses carry an Error body.
 */
export const declaredWithoutContent = (method: string, path: string, status: number): boolean => {
  const match = matchRoute(method, path);
  if (!match) return false;
  paths ??= openApiDocument().paths as unknown as Record<string, Record<string, Operation>>;
  const response = paths[match.route.path]?.[method.toLowerCase()]?.responses[String(status)];
  return response !== undefined && response.content === undefined;
};
