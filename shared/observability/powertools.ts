// The container's Powertools Logger, configured from the environment the stack sets:
// POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL. Metrics ride on the summary lines (emf.ts says
// why not Powertools Metrics), which summary-line.ts writes; traces are xray.ts's.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];
const valid = (level: string | undefined): string | undefined => (level && LEVELS.includes(level) ? level : undefined);

/**
 * The level the Logger takes, resolved as it resolves it when made with no options (Logger's
 * setOptions): Lambda's log level (AWS_LAMBDA_LOG_LEVEL, advanced logging controls) when set,
 * else POWERTOOLS_LOG_LEVEL, else LOG_LEVEL, else INFO. Known without making the Logger, which
 * a function that only writes its summary line never makes (below); a test holds it to the
 * Logger's own answer.
 */
export const loggerLevel = (env: NodeJS.ProcessEnv = process.env): string => {
  const lambda = env.AWS_LAMBDA_LOG_LEVEL?.trim();
  return (
    valid(lambda === 'FATAL' ? 'CRITICAL' : lambda) ??
    valid(env.POWERTOOLS_LOG_LEVEL?.trim() || env.LOG_LEVEL?.trim()) ??
    'INFO'
  );
};

let made: Promise<Logger> | undefined;
/**
 * The Logger, for what is not a summary line (a fault and its stack), with `context` as
 * injectLambdaContext would have given it. Made on first use: an invocation that goes well writes
 * only its summary line, so a cold start need not evaluate the Logger's module nor make it:
 * ~1.6 ms less of getPet's import + first invocation (median of 21 fresh processes, against a
 * floor of ~51 ms; docs/performance.md), and no per-invocation context and keys to keep.
 */
export const loggerFor = async (context: Context, coldStart: boolean): Promise<Logger> => {
  made ??= import('@aws-lambda-powertools/logger').then(({ Logger }) => {
    const logger = new Logger();
    // Its first addContext takes Powertools' cold-start flag; when this is not the container's
    // first invocation, that one is spent here and the next says false.
    if (!coldStart) logger.addContext(context);
    return logger;
  });
  const logger = await made;
  logger.addContext(context);
  return logger;
};
