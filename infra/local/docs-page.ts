// `GET /docs` on the local server: the API reference, drawn in the browser by Redoc (the
// `redoc` package's standalone bundle, served from node_modules) from the committed
// openapi.json. Outside /v1 and without a key, as the contract says. Nothing on the page
// comes from another host, so it reads the same with no network: its Content-Security-Policy
// says so to the browser, and test/browser/docs-page.test.ts checks it in a real one.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

const DOCS_PATH = '/docs';
const BUNDLE_PATH = `${DOCS_PATH}/redoc.standalone.js`;
const DOCUMENT_PATH = `${DOCS_PATH}/openapi.json`;

const OPENAPI_JSON = new URL('../../openapi.json', import.meta.url);
const BUNDLE_FILE = new URL(import.meta.resolve('redoc/bundles/redoc.standalone.js'));

/**
 * Redoc's menu footer ("API docs by Redocly") shows a logo that the bundle fetches from
 * Redocly's CDN, and no option turns it off. Served here with an empty `data:` address
 * instead: the image then fails without a request, and Redoc hides it (its onError).
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** Only this server's own files; inline styles because Redoc's styled-components write them. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// Without JavaScript, the page points to the document itself (<noscript>).
// Redoc's standalone bundle turns every <redoc> element into the reference (its attributes are its options).
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store API reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript><p>The reference is drawn by JavaScript, which is off. The document it is drawn from, OpenAPI 3:
<a href="${DOCUMENT_PATH}">${DOCUMENT_PATH}</a>.</p></noscript>
<redoc spec-url="${DOCUMENT_PATH}" required-props-first="true" expand-responses="200,201" json-sample-expand-level="all"></redoc>
<script src="${BUNDLE_PATH}"></script>
</body>
</html>
`;

let bundle: string | undefined;
const redocBundle = (): string => {
  bundle ??= readFileSync(BUNDLE_FILE, 'utf8').replaceAll(REDOC_CDN_LOGO, 'data:,');
  return bundle;
};

const files: Record<string, () => { type: string; body: string | Buffer; headers?: Record<string, string> }> = {
  [DOCS_PATH]: () => ({
    type: 'text/html; charset=utf-8',
    body: page,
    headers: { 'Content-Security-Policy': CONTENT_SECURITY_POLICY },
  }),
  [BUNDLE_PATH]: () => ({ type: 'text/javascript; charset=utf-8', body: redocBundle() }),
  // Read on each request: `npm run openapi` shows on the next reload.
  [DOCUMENT_PATH]: () => ({ type: 'application/json', body: readFileSync(OPENAPI_JSON) }),
};

const send = (res: ServerResponse, head: boolean, file: ReturnType<(typeof files)[string]>) => {
  const body = Buffer.from(file.body);
  res.writeHead(200, {
    'Content-Type': file.type,
    'Content-Length': String(body.length),
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    ...file.headers,
  });
  res.end(head ? undefined : body);
};

/** Answers GET and HEAD of the reference's three files; false for every other request (the API's). */
export const serveDocsPage = (req: IncomingMessage, res: ServerResponse): boolean => {
  const path = req.url?.split('?')[0] ?? '';
  const file = Object.hasOwn(files, path) ? files[path] : undefined;
  if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  send(res, req.method === 'HEAD', file());
  return true;
};
