// Matching a request to a route of the route table as API Gateway does: the local stage's
// gateway and the in-process test harness use it; deployed, API Gateway itself matches.
import { type Route, resourcePath, routes } from '../../shared/api/routes.ts';

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** Each route's path template, split once: a segment is a literal, or `{name}`'s parameter name. */
const templates = routes.map((route) => ({
  route,
  parts: resourcePath(route)
    .split('/')
    .map((part) => ({ literal: part, parameter: /^\{(\w+)\}$/.exec(part)?.[1] })),
}));

/** Matches a request path (below the stage) as API Gateway does: whole segments, `{name}` takes one. */
export const matchRoute = (method: string, path: string): RouteMatch | undefined => {
  const segments = path.split('/');
  for (const { route, parts } of templates) {
    if (route.method !== method || parts.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = parts.every(({ literal, parameter }, i) => {
      const segment = segments[i] ?? '';
      if (parameter === undefined) return literal === segment;
      if (segment === '') return false;
      pathParameters[parameter] = safeDecode(segment);
      return true;
    });
    if (matches) return { route, pathParameters };
  }
  return undefined;
};

const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** An absolute-form target's scheme and authority (RFC 9112 §3.2.2); the scheme is any case (RFC 3986 §3.1). */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * A request target in origin form: an absolute-form target (`http://host/v1/pets`, which RFC
 * 9112 §3.2.2 has every server accept) as its path and query, `/` when it has no path.
 */
export const originForm = (target: string): string => {
  const authority = ABSOLUTE_FORM.exec(target)?.[0];
  if (authority === undefined) return target;
  const rest = target.slice(authority.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
};
