// `npm start`: the API as stage `local`, on one machine, with an embedded DynamoDB
// whose data survives restarts. Every knob is an environment variable (README).
import { flushCompileCache } from 'node:module';
import { cannotStart, failWith, printBanner, stageOptionsFromEnvironment, stopOnSignals } from './options.ts';
import { startLocalStage } from './stage.ts';
import { batchStdoutByTurn } from './stdout-batching.ts';

const fail = failWith('npm start');
batchStdoutByTurn();

const options = stageOptionsFromEnvironment('npm start');
const starting = startLocalStage(options);
// From the first moment: a signal while the stage starts (a process manager giving up on it)
// lets the start finish, answers the requests held meanwhile for the key, then stops.
stopOnSignals(async () => {
  const stage = await starting.catch(() => new Promise<never>(() => {})); // a failed start exits through `fail`
  await stage.close();
});
const stage = await starting.catch((error: Error) => fail(cannotStart('npm start', error, options)));
printBanner(stage, 'Stop with Ctrl+C.');
flushCompileCache(); // compile-cache.mjs: a server killed later still starts from the cache next time
