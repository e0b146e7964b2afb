// GET /docs over HTTP: the reference page, its renderer and the document, without a key,
// outside /v1; anything else under /docs is the API's 404. (What a person sees in a
// browser: test/browser/docs-page.test.ts.)
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDOC_CDN_LOGO } from '../../infra/local/docs-page.ts';
import type { LocalServer } from '../../tools/harness/local-server.ts';
import { call, disposeServer, expectError, startServer } from './support.ts';

let server: LocalServer;
let origin: string;
beforeAll(async () => {
  server = await startServer();
  origin = new URL(server.baseUrl).origin;
});
afterAll(() => disposeServer(server));

const get = (path: string, init: RequestInit = {}) => fetch(`${origin}${path}`, init);

describe('GET /docs', () => {
  it('is the address npm start prints', () => {
    expect(server.output()).toContain(`API reference: ${origin}/docs\n`);
  });

  it('serves the reference page without a key, forbidding the browser any other host', async () => {
    const response = await get('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/(^|; )default-src 'self'(;|$)/);
    expect(csp).not.toMatch(/https?:|\*/);
    const html = await response.text();
    expect(html).toContain('<redoc spec-url="/docs/openapi.json"');
    expect(html).toContain('<script src="/docs/redoc.standalone.js">');
    // Without JavaScript (nothing drawn), a pointer to the document, which is served (below).
    expect(html).toMatch(/<noscript>[\s\S]*<a href="\/docs\/openapi\.json">[\s\S]*<\/noscript>/);
    // Every address on the page is this server's own (the icon is empty: no /favicon.ico request).
    expect([...html.matchAll(/(?:src|href|spec-url)="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'data:,',
      '/docs/openapi.json',
      '/docs/openapi.json',
      '/docs/redoc.standalone.js',
    ]);
  });

  it('serves the renderer from node_modules, its CDN logo taken out', async () => {
    const response = await get('/docs/redoc.standalone.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
    const bundle = await response.text();
    expect(bundle.length).toBeGreaterThan(500_000);
    expect(bundle).toContain('Redoc');
    expect(bundle).not.toContain(REDOC_CDN_LOGO);
  });

  it('serves the committed openapi.json, byte for byte', async () => {
    const response = await get('/docs/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
  });

  it('answers HEAD with the headers only', async () => {
    const response = await get('/docs', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await response.text()).toBe('');
  });

  it('leaves every other method and path to the API: a 404 Error body, before any key', async () => {
    for (const [method, path] of [
      ['POST', '/docs'],
      ['GET', '/docs/'],
      ['GET', '/docs/package.json'],
      ['GET', '/v1/docs'],
    ] as const) {
      expectError(await call(server, `${origin}${path}`, { method, authorization: null }), 404, 'NOT_FOUND');
    }
  });
});
