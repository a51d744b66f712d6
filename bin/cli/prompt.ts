/**
 * Asking the operator for a value. On a terminal the question goes to stderr and a hidden answer is not
 * echoed (so a client secret is neither on the screen nor in the shell history); with a pipe on stdin
 * (a password manager, a CI secret), each answer is the next line of it and nothing is printed.
 */
import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';

/** Reads one answer; `undefined` when the input ended first. */
export type Ask = (question: string, options: { hidden: boolean }) => Promise<string | undefined>;

/** An `Ask` over a process's stdin and stderr. */
export function terminalAsk(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): Ask {
  let lines: AsyncIterator<string> | undefined;
  let reader: Interface | undefined;
  return async (question, { hidden }) => {
    if (!stdin.isTTY) {
      reader ??= createInterface({ input: stdin, terminal: false });
      lines ??= reader[Symbol.asyncIterator]();
      const next = await lines.next();
      return next.done ? undefined : next.value;
    }
    // A muted copy of stderr: readline echoes what is typed to its output, which is dropped while hidden.
    let muted = false;
    const output = new Writable({
      write(chunk, encoding, done) {
        if (!muted) stderr.write(chunk, encoding);
        done();
      },
    });
    const rl = createInterface({ input: stdin, output, terminal: true });
    try {
      const answer = new Promise<string | undefined>((resolve) => {
        rl.once('line', resolve);
        rl.once('close', () => resolve(undefined));
      });
      rl.setPrompt(question);
      rl.prompt();
      muted = hidden;
      const value = await answer;
      if (hidden) stderr.write('\n');
      return value;
    } finally {
      rl.close();
    }
  };
}
