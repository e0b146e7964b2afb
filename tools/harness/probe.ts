// Loaded with `node --import` into a server process that a test or a benchmark starts
// (probe-client.ts), so that the server's own code carries nothing for them: counts the
// requests the process's embedded DynamoDB answers, by operation, as they arrive on the
// wire (any HTTP request with an X-Amz-Target header), and answers its parent over IPC
// with those counts, the process's CPU time (all threads: the embedded DynamoDB's
// LevelDB included) and its memory (its peak RSS too), after a full GC when run with --expose-gc.
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { ProbeAnswer, ProbeQuestion } from './probe-client.ts';

const requests: Record<string, number> = {};
subscribe('http.server.request.start', (message) => {
  const target = (message as { request: IncomingMessage }).request.headers['x-amz-target'];
  if (typeof target !== 'string') return;
  const operation = target.replace(/^DynamoDB_\d+\./, '');
  requests[operation] = (requests[operation] ?? 0) + 1;
});

const answer = (question: ProbeQuestion): unknown => {
  switch (question.ask) {
    case 'dynamodbRequests':
      return { ...requests };
    case 'cpuMicros': {
      const { user, system } = process.cpuUsage();
      return user + system;
    }
    case 'memory':
      if (question.gc) {
        globalThis.gc?.();
        globalThis.gc?.();
      }
      return { ...process.memoryUsage(), maxRSS: process.resourceUsage().maxRSS * 1024 };
  }
};

process.on('message', (message: ProbeQuestion) => {
  if (message?.probe === undefined) return;
  process.send?.({ probe: message.probe, result: answer(message) } satisfies ProbeAnswer);
});
process.channel?.unref(); // the probe never keeps the process alive
