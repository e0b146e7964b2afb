// The container's Powertools Logger, made at init from the environment the stack sets:
// POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL (or Lambda's own log level). Metrics ride on the
// summary lines (emf.ts says why not Powertools Metrics), which summary-line.ts writes; traces
// are xray.ts's.
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

const logger = new Logger();

/** Whether the Logger lets INFO through, the level of the summary line: its level is fixed at init. */
export const infoEnabled = ['TRACE', 'DEBUG', 'INFO'].includes(logger.getLevelName());
/** Whether the Logger lets WARN through, the level of a degraded step's line (logDegraded). */
export const warnEnabled = infoEnabled || logger.getLevelName() === 'WARN';

/**
 * The faults' own Logger, made at the first fault (not at init, which every cold start waits for).
 * Powertools keeps the context it is given for the process (deployed, outside Lambda's concurrent
 * mode), and a fault's invocation is not the next one: given to the container's Logger, its ids
 * would stay on a later WARN line (logDegraded) of another invocation.
 */
let faultLogger: Logger | undefined;
/**
 * The Logger for a fault's line and its stack, with `context` as injectLambdaContext would have
 * given it; given only when a fault is written, so that an invocation that goes well runs nothing
 * of it.
 */
export const loggerFor = (context: Context, coldStart: boolean): Logger => {
  if (faultLogger === undefined) {
    faultLogger = logger.createChild();
    // Its first addContext takes Powertools' cold-start flag; when this is not the container's
    // first invocation, that one is spent here and the next says false.
    if (!coldStart) faultLogger.addContext(context);
  }
  faultLogger.addContext(context);
  return faultLogger;
};

/**
 * A WARN line for a step that failed without failing the request, with Powertools' Error
 * formatting of `fields.error`: telemetry.ts's logDegradedStep writes it, its metrics on it.
 */
export const logDegraded = (message: string, fields: Record<string, unknown>): void => logger.warn(message, fields);
