// Lambda's trace header, for the tests that invoke a function as Lambda does with active tracing
// and for the host of a bundled function (lambda-host.ts), whose imports load before the bundle it
// times and must not load what the bundle will (node:dgram, say): this module imports nothing.

/** The trace header Lambda sets for one invocation: its own trace id, Lambda's function segment as parent. */
export const traceHeader = (sampled: boolean) => {
  const root = `1-${Math.floor(Date.now() / 1000).toString(16)}-${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const parent = crypto.randomUUID().replaceAll('-', '').slice(0, 16);
  return { root, parent, header: `Root=${root};Parent=${parent};Sampled=${sampled ? 1 : 0}` };
};
