// The API reference as a person sees it: `npm start`'s /docs in a real headless browser
// (Debian's chromium, driven by playwright-core). Every operation and every error
// response render, and the page asks nothing of any host but the local server. Leaves
// screenshots in test-results/ (git-ignored) to look at.
// biome-ignore-all lint/performance/useDomNodeTextContent: the rendered text (innerText) is what a person reads
import { mkdirSync, readFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { routes } from '../../shared/api/routes.ts';
import { disposeServer, type LocalServer, startLocalServer } from '../../tools/harness/local-server.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = new URL('../../test-results/', import.meta.url);

const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
const operations = Object.values<any>(document.paths).flatMap((methods) => Object.values<any>(methods));

let server: LocalServer;
let browser: Browser;
let page: Page;
let origin: string;
/** Every request the page made that did not go to the local server. */
const elsewhere: string[] = [];
/** What the page reported as broken: console errors and uncaught exceptions. */
const problems: string[] = [];

beforeAll(async () => {
  server = await startLocalServer();
  origin = new URL(server.baseUrl).origin;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // As root in a sandbox without a GPU, and with a closed network: no sandbox, no GPU, and none of
    // Chromium's own background connections (updates, sync, QUIC), which would only be refused.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('request', (request) => {
    const url = new URL(request.url());
    const own = url.origin === origin || (url.protocol === 'blob:' && request.url().startsWith(`blob:${origin}/`));
    if (!own) elsewhere.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${origin}/docs`);
  await page.locator(`[id="operation/${routes.at(-1)!.operationId}"]`).waitFor({ timeout: 30_000 });
});

afterAll(async () => {
  await browser?.close();
  await disposeServer(server);
});

describe('the reference at /docs, in chromium', () => {
  test("shows the route table's operations, each under its summary, with method and path", async () => {
    expect(operations.map((o) => o.operationId)).toEqual(routes.map((r) => r.operationId));
    for (const operation of operations) {
      const section = page.locator(`[id="operation/${operation.operationId}"]`);
      await expect.poll(() => section.getByRole('heading', { name: operation.summary }).isVisible()).toBe(true);
    }
    const menu = await page.locator('[role="menu"]').first().innerText();
    // The menu shows each summary up to its first parenthesis.
    for (const { summary } of routes) expect(menu).toContain(summary.replace(/ \(.*$/, ''));
  });

  test('shows every error response of every operation with its status and code', async () => {
    for (const operation of operations) {
      const text = await page.locator(`[id="operation/${operation.operationId}"]`).innerText();
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        const code = /^`([A-Z_]+)`/.exec(response.description)![1]!;
        expect(text, `${operation.operationId} ${status}`).toMatch(new RegExp(`${status}\\s+${code}:`));
      }
    }
  });

  test('shows the Errors table with every code', async () => {
    const errors = await page.locator('[id="section/Errors"]').innerText();
    const codes = document.components.schemas.Error.properties.code.enum as string[];
    expect(codes.length).toBeGreaterThan(8);
    for (const code of codes) expect(errors).toContain(code);
  });

  test('loads nothing from any other host, and reports no error', () => {
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  });

  test('leaves screenshots to look at', async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: new URL('docs.png', SCREENSHOTS).pathname });
    await page.evaluate(`document.getElementById('operation/createPet').scrollIntoView()`);
    await page.screenshot({ path: new URL('docs-createPet.png', SCREENSHOTS).pathname });
    expect(readFileSync(new URL('docs.png', SCREENSHOTS)).subarray(1, 4).toString()).toBe('PNG');
  });
});
