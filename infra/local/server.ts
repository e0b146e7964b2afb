// `npm start`: the API as stage `local`, on one machine, with an embedded DynamoDB
// whose data survives restarts. Every knob is an environment variable (README).
import { failWith, printBanner, stageOptionsFromEnvironment } from './options.ts';
import { type LocalStage, startLocalStage } from './stage.ts';

const fail = failWith('npm start');

let stage: LocalStage;
try {
  stage = await startLocalStage(stageOptionsFromEnvironment('npm start'));
} catch (error) {
  fail(`cannot start: ${(error as Error).message}`);
}
printBanner(stage!, 'Stop with Ctrl+C.');

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping: finishing requests in flight');
  await stage.close();
  console.log('stopped');
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
// Under `npm start`, npm runs this process through a shell. A SIGTERM sent to npm (as
// process managers and `timeout` send it) ends npm and the shell but never reaches
// this process, which kept the port and the data directory. Its parent going away
// (this process is handed to another) is that SIGTERM: stop the same way.
if (process.env.npm_lifecycle_event) {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop();
  }, 250).unref();
}
