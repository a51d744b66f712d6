/**
 * Structured logging for the functions (Powertools Logger, service `idv-pipeline`).
 * Correlation ids are `resultId` and `transactionId`; nothing else from a result may be logged, because
 * results carry personal data. Use `describeError` from `./errors` to log errors.
 *
 * Records of one batch run at once, so the ids of a record cannot be keys of the shared logger (one
 * record's keys would land on another's lines). They live in an `AsyncLocalStorage` store instead, set
 * by {@link withCorrelation} for the record's whole async call tree; every line a {@link createLogger}
 * logger prints reads the store of the code that logs it, wherever that code is (the service client's
 * retry lines included).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import type {
  ConstructorOptions,
  LogItemExtraInput,
  LogItemMessage,
} from '@aws-lambda-powertools/logger/types';
import { RESULT_ID_PATTERN } from './api/result-id';
import { METRICS } from './metrics-names';

export type { Logger } from '@aws-lambda-powertools/logger';

/** Identifiers that may appear on every log line of one message. */
export interface CorrelationIds {
  readonly resultId?: string | undefined;
  readonly transactionId?: string | undefined;
}

/** The ids of the record whose code is running, if any. */
const correlation = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/** A Powertools logger whose every line also carries the current record's ids ({@link withCorrelation}). */
class CorrelatedLogger extends Logger {
  protected override createAndPopulateLogItem(
    logLevel: number,
    input: LogItemMessage,
    extraInput: LogItemExtraInput,
  ): LogItem {
    const item = super.createAndPopulateLogItem(logLevel, input, extraInput);
    const ids = correlation.getStore();
    return ids ? item.addAttributes(ids) : item;
  }

  /** Children (`createChild`) read the store too. */
  protected override createLogger(options?: ConstructorOptions): Logger {
    return new CorrelatedLogger(options);
  }
}

/** A logger for one function, with the environment as a persistent key. */
export function createLogger(options: { environment?: string; functionName?: string } = {}): Logger {
  const persistentKeys: Record<string, string> = {};
  if (options.environment) persistentKeys.environment = options.environment;
  if (options.functionName) persistentKeys.pipelineFunction = options.functionName;
  return new CorrelatedLogger({ serviceName: METRICS.serviceName, persistentKeys });
}

/**
 * Runs `work` with the correlation ids on every line logged by its async call tree, and only there: a
 * record running at the same time has its own ids, and nothing outlives `work`. Only ids that follow the
 * resultId rule are logged (a transactionId from an older message could be any text). `logger` must come
 * from {@link createLogger}: a plain Powertools logger does not read the ids.
 */
export function withCorrelation<T>(_logger: Logger, ids: CorrelationIds, work: () => Promise<T>): Promise<T> {
  const keys: Record<string, string> = { ...correlation.getStore() };
  for (const key of ['resultId', 'transactionId'] as const) {
    const value = ids[key];
    if (value !== undefined && RESULT_ID_PATTERN.test(value)) keys[key] = value;
  }
  return correlation.run(keys, work);
}
