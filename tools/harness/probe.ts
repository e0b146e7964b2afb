// Loaded with `node --import` into a server process that a test or a benchmark starts
// (probe-client.ts), so that the server's own code carries nothing for them: counts the
// requests the process's embedded DynamoDB answers, by operation, as they arrive on the
// wire (any HTTP request with an X-Amz-Target header), and answers its parent over IPC
// with those counts, the process's CPU time (all threads: the embedded DynamoDB's
// LevelDB included) and its memory (its peak RSS too), after a full GC when run with --expose-gc.
//
// A worker thread runs the modules of `--import` too (the server's store runs in one:
// infra/local/dynamodb-thread.ts), and diagnostics_channel is per thread: each thread counts
// its own requests, and the main thread, which alone has the IPC channel, asks the others for
// theirs over a BroadcastChannel and adds them up.
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';
import type { ProbeAnswer, ProbeQuestion } from './probe-client.ts';

type Counts = Record<string, number>;
/** Between threads: a question from the main thread, or a thread's counts (its first, unasked, says it exists). */
type ThreadMessage = { ask: number } | { thread: number; asked: number; requests: Counts };

/** How long the main thread waits for a thread that does not answer (one that has ended). */
const THREAD_ANSWER_MS = 500;

const requests: Counts = {};
subscribe('http.server.request.start', (message) => {
  const target = (message as { request: IncomingMessage }).request.headers['x-amz-target'];
  if (typeof target !== 'string') return;
  const operation = target.replace(/^DynamoDB_\d+\./, '');
  requests[operation] = (requests[operation] ?? 0) + 1;
});

const threads = new BroadcastChannel('petstore-probe');
threads.unref(); // the probe never keeps a thread alive

if (!isMainThread) {
  const tell = (asked: number) => threads.postMessage({ thread: threadId, asked, requests: { ...requests } });
  threads.onmessage = (event) => {
    const message = (event as MessageEvent<ThreadMessage>).data;
    if ('ask' in message) tell(message.ask);
  };
  tell(-1);
} else {
  /** Every other thread's counts, as it last gave them: a thread that ended keeps its last. */
  const others = new Map<number, { asked: number; requests: Counts }>();
  const waiting = new Set<() => void>();
  let asked = 0;
  threads.onmessage = (event) => {
    const message = (event as MessageEvent<ThreadMessage>).data;
    if (!('thread' in message)) return;
    others.set(message.thread, message);
    for (const check of waiting) check();
  };
  /** The counts of every thread, each as of this question. */
  const allRequests = async (): Promise<Counts> => {
    const question = ++asked;
    const expected = [...others.keys()];
    const answered = () => expected.every((thread) => others.get(thread)!.asked >= question);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiting.delete(check);
        resolve();
      };
      const check = () => answered() && done();
      const timer = setTimeout(done, THREAD_ANSWER_MS);
      waiting.add(check);
      threads.postMessage({ ask: question } satisfies ThreadMessage);
      check();
    });
    const sum: Counts = { ...requests };
    for (const { requests: theirs } of others.values())
      for (const [operation, n] of Object.entries(theirs)) sum[operation] = (sum[operation] ?? 0) + n;
    return sum;
  };

  const answer = async (question: ProbeQuestion): Promise<unknown> => {
    switch (question.ask) {
      case 'dynamodbRequests':
        return allRequests();
      case 'cpuMicros': {
        const { user, system } = process.cpuUsage(); // getrusage(RUSAGE_SELF): every thread
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

  process.on('message', async (message: ProbeQuestion) => {
    if (message?.probe === undefined) return;
    process.send?.({ probe: message.probe, result: await answer(message) } satisfies ProbeAnswer);
  });
  process.channel?.unref(); // the probe never keeps the process alive
}
