/**
 * Handler log lines in a terminal. In Lambda the Powertools logger writes one JSON object per line for
 * CloudWatch; between the local run's event lines that JSON is noise. The run sets `POWERTOOLS_DEV` (the
 * logger then writes through the global `console`), and `captureHandlerLogs` turns each of those objects
 * into one readable line: level, function, message, correlation ids and the error's name and message.
 */
import { isJsonObject } from '../shared/json-object';

/** Keys every Powertools line carries that say nothing a person at the terminal needs. */
const NOISE = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'environment',
  'pipelineFunction',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'error',
]);

const LEVEL_MARK: Record<string, string> = { WARN: '⚠', ERROR: '✖', CRITICAL: '✖' };

/**
 * One readable line for a Powertools JSON log line, or `undefined` when `text` is not one (it is then
 * printed as it came). Only the message, the correlation ids and other primitive fields of the logger's
 * own keys are shown: the pipeline logs ids and counts only, never a result's content.
 */
export function formatHandlerLog(text: string): string | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(entry)) return undefined;
  const record = entry;
  if (typeof record.level !== 'string' || typeof record.message !== 'string') return undefined;
  const level = record.level.toUpperCase();
  const fields = Object.entries(record)
    .filter(([key, value]) => !NOISE.has(key) && ['string', 'number', 'boolean'].includes(typeof value))
    .map(([key, value]) => `${key}=${value}`);
  const error = describeLoggedError(record.error);
  if (error) fields.push(`error=${error}`);
  const where = typeof record.pipelineFunction === 'string' ? `${record.pipelineFunction}  ` : '';
  const mark = LEVEL_MARK[level] ?? '·';
  return `${mark} ${level.toLowerCase().padEnd(5)} ${where}${record.message}${fields.length ? `  ${fields.join(' ')}` : ''}`;
}

function describeLoggedError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (typeof name !== 'string') return undefined;
  return typeof message === 'string' && message ? `${name}: ${message}` : name;
}

const METHODS = ['debug', 'info', 'warn', 'error', 'log', 'trace'] as const;

/**
 * Routes everything the handlers print through `console` to `write`, one readable line per log entry,
 * and hands each Powertools entry, parsed, to `onEntry` (the run's trace journal). Returns the function
 * that puts the console back.
 */
export function captureHandlerLogs(
  write: (line: string) => void,
  onEntry?: (entry: Record<string, unknown>) => void,
): () => void {
  const original = METHODS.map((method) => [method, console[method]] as const);
  for (const method of METHODS) {
    console[method] = (...args: unknown[]) => {
      const text = args.map((arg) => (typeof arg === 'string' ? arg : String(arg))).join(' ');
      if (onEntry && text.startsWith('{')) {
        try {
          const entry: unknown = JSON.parse(text);
          if (isJsonObject(entry)) onEntry(entry);
        } catch {
          // Not a log entry: printed as it came below.
        }
      }
      write(formatHandlerLog(text) ?? text);
    };
  }
  return () => {
    for (const [method, fn] of original) console[method] = fn;
  };
}
