/**
 * Structured logging for the functions (Powertools Logger, service `idv-pipeline`).
 * Correlation ids are `resultId` and `transactionId`; nothing else from a result may be logged, because
 * results carry personal data. Use `describeError` from `./errors` to log errors.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { METRICS } from './metrics-names';

export type { Logger } from '@aws-lambda-powertools/logger';

/** Identifiers that may appear on every log line of one message. */
export interface CorrelationIds {
  readonly resultId?: string | undefined;
  readonly transactionId?: string | undefined;
}

/** A logger for one function, with the environment as a persistent key. */
export function createLogger(options: { environment?: string; functionName?: string } = {}): Logger {
  const persistentKeys: Record<string, string> = {};
  if (options.environment) persistentKeys.environment = options.environment;
  if (options.functionName) persistentKeys.pipelineFunction = options.functionName;
  return new Logger({ serviceName: METRICS.serviceName, persistentKeys });
}

/**
 * Runs `work` with the correlation ids appended to every log line, and removes them afterwards so the
 * next message of the batch does not inherit them.
 */
export async function withCorrelation<T>(
  logger: Logger,
  ids: CorrelationIds,
  work: () => Promise<T>,
): Promise<T> {
  const keys: Record<string, string> = {};
  if (ids.resultId) keys.resultId = ids.resultId;
  if (ids.transactionId) keys.transactionId = ids.transactionId;
  logger.appendKeys(keys);
  try {
    return await work();
  } finally {
    logger.removeKeys(Object.keys(keys));
  }
}
