// `npm start`: the API as stage `local`, on one machine, with an embedded DynamoDB
// whose data survives restarts. Every knob is an environment variable (README).
import { failWith, printBanner, stageOptionsFromEnvironment, stopOnSignals } from './options.ts';
import { type LocalStage, startLocalStage } from './stage.ts';
import { batchStdoutByTurn } from './stdout-batching.ts';

const fail = failWith('npm start');
batchStdoutByTurn();

let stage: LocalStage;
try {
  stage = await startLocalStage(stageOptionsFromEnvironment('npm start'));
} catch (error) {
  fail(`cannot start: ${(error as Error).message}`);
}
// Before the banner: a signal sent as soon as it is read finds the handlers in place.
stopOnSignals(() => stage.close());
printBanner(stage!, 'Stop with Ctrl+C.');
