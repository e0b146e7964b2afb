// Bundled in place of `node:http` wherever a bundled module imports it as an ES module
// (api-function.ts, esbuild alias): middy's util (`import { STATUS_CODES } from 'node:http'`), in
// every function's bundle, and the SDK's HTTP handler (`await import('node:http')`, for plain-http
// endpoints only; DynamoDB's is https). Node builds the ES module facade of a built-in by reading
// every export, and node:http's include lazy getters (WebSocket, MessageEvent, CloseEvent…) that
// load undici at import. What it saves a cold start: docs/performance.md, "Functions alone" (the
// bundle without this alias, measured by `npm run bench:cold` at commit 921b850). The module itself, unchanged: CommonJS
// `require('http')` inside the bundle never went through the facade.
const http = process.getBuiltinModule('node:http');
export default http;
// The named imports bundled modules make (@middy/util); a new one fails the build, never silently.
export const { STATUS_CODES } = http;
