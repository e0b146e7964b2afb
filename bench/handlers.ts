// `npm run bench:handlers`: each Lambda handler alone, warm, against the floor, the part
// of `npm run bench` that holds on AWS. Knobs: HANDLER_ROUNDS (7), HANDLER_INVOCATIONS
// (400 a round), HANDLER_FUNCTIONS (a comma-separated subset), HANDLER_TRACING (off,sampled,unsampled).
import { measureHandlers } from './support/handler-bench.ts';
import { handlersTable } from './support/report.ts';

const figures = await measureHandlers(undefined, process.env.HANDLER_FUNCTIONS?.split(','));
console.log(handlersTable(figures));
