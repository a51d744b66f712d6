/**
 * Error classes of the pipeline core (the service client has its own hierarchy in `shared/client/errors.ts`).
 * Messages name the problem (a variable, a field, a step) and never carry secrets, tokens or personal data.
 */
import { scrubSecrets } from './scrub';

/** Base of the pipeline's own errors. */
export class PipelineError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PipelineError';
  }
}

/** A required environment variable is missing or invalid. Thrown at module load, naming the variable. */
export class ConfigError extends PipelineError {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/** A secret is missing or not in the expected shape. The message names the secret's role, never its value. */
export class SecretFormatError extends PipelineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretFormatError';
  }
}

/** A queue message that can never succeed (bad JSON, bad resultId): it should end in the DLQ for a human. */
export class MalformedMessageError extends PipelineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MalformedMessageError';
  }
}

/** EventBridge rejected an entry (`FailedEntryCount` > 0): the message is retried through redelivery. */
export class EventPublishError extends PipelineError {
  readonly errorCode: string | undefined;
  constructor(message: string, errorCode?: string) {
    super(message);
    this.name = 'EventPublishError';
    this.errorCode = errorCode;
  }
}

/** Some poll records could not be enqueued after the bounded retries; the next scheduled run tries again. */
export class EnqueueError extends PipelineError {
  readonly failedCount: number;
  constructor(failedCount: number, options?: { cause?: unknown }) {
    super(`${failedCount} message(s) could not be sent to the results queue`, options);
    this.name = 'EnqueueError';
    this.failedCount = failedCount;
  }
}

/**
 * What may be logged about an error: its name, message and, for service errors, status and code. Stacks,
 * causes and any other field (a service error's request id, a body's details) are left out because a
 * cause may hold a response body; name and message go through `scrubSecrets` as a last line of defence.
 */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: 'NonError', message: typeof error };
  const described: Record<string, unknown> = {
    name: scrubSecrets(String(error.name)),
    message: scrubSecrets(String(error.message)),
  };
  const extra = error as { status?: unknown; code?: unknown };
  if (typeof extra.status === 'number') described.status = extra.status;
  if (typeof extra.code === 'number') described.code = extra.code;
  else if (typeof extra.code === 'string') described.code = scrubSecrets(extra.code);
  return described;
}

/**
 * Another delivery holds a result's publication claim and the store shows no end for the result yet (no
 * item, no erasure record): the message is not acknowledged but left for redelivery, so it cannot vanish
 * if the holder fails (docs/reliability.md, "Every message ends somewhere you can see").
 */
export class ClaimHeldElsewhereError extends PipelineError {
  constructor() {
    super('another delivery holds the claim and the store shows no outcome yet; left for redelivery');
    this.name = 'ClaimHeldElsewhereError';
  }
}
