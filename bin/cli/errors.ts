/** Errors of the CLI itself (the client's errors come from `shared/client/errors`). */

/** Wrong command line: unknown command or flag, missing or malformed value. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose help to point at, e.g. `secure-link create`. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}
