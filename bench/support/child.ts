/**
 * Benchmark child processes: a TypeScript module forked through tsx with an IPC channel, so what a bench
 * measures (the handler side) runs in a process of its own and the load, the emulators and the service
 * stand-in do not count towards its memory or CPU.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Options of {@link startChild}. */
export interface ChildOptions {
  /** Extra V8/Node flags, e.g. `--expose-gc`. */
  execArgv?: string[];
  /** Added to the parent's environment. */
  env?: Record<string, string>;
  /** Where the child's stdout goes: handlers log a line per message, which the bench does not read. @default 'ignore' */
  stdout?: 'ignore' | 'inherit';
}

/** A forked child speaking request/response over IPC: every request carries an `id`, every answer echoes it. */
export interface Child {
  readonly process: ChildProcess;
  /** Sends `message` and resolves with the child's answer (rejects on an `error` answer or when the child exits). */
  request<T>(message: Record<string, unknown>): Promise<T>;
  /** The first message the child sends on its own (`{ type: 'ready', … }`). */
  readonly ready: Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Forks `module` (a path relative to this folder's parent, e.g. `support/fetch-worker.ts`) under tsx.
 * Its stderr is inherited so a crash is visible; its stdout is dropped unless asked for.
 */
export function startChild(module: string, options: ChildOptions = {}): Child {
  const path = fileURLToPath(new URL(`../${module}`, import.meta.url));
  const child = fork(path, [], {
    execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...options.env },
    stdio: ['ignore', options.stdout ?? 'ignore', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exited: Error | undefined;
  let onReady: (message: Record<string, unknown>) => void = () => undefined;
  let onReadyFailed: (error: Error) => void = () => undefined;
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    onReady = resolve;
    onReadyFailed = reject;
  });

  child.on('message', (raw) => {
    const message = raw as Record<string, unknown>;
    if (message.type === 'ready') return onReady(message);
    const waiter = pending.get(message.id as number);
    if (!waiter) return;
    pending.delete(message.id as number);
    if (message.type === 'error') waiter.reject(new Error(`${module}: ${String(message.message)}`));
    else waiter.resolve(message as never);
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`${module} exited (${signal ?? code})`);
    onReadyFailed(exited);
    for (const waiter of pending.values()) waiter.reject(exited);
    pending.clear();
  });

  return {
    process: child,
    ready,
    request<T>(message: Record<string, unknown>): Promise<T> {
      if (exited) return Promise.reject(exited);
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: never) => void, reject });
        child.send({ ...message, id });
      });
    },
    async close(): Promise<void> {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/**
 * The child side: answers each request with `handle(message)` (plus the request id), or with
 * `{ type: 'error', message }` when it throws, and announces `ready` once `init` is done.
 */
export async function serveParent(
  init: () => Promise<Record<string, unknown>>,
  handle: (message: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<void> {
  if (!process.send) throw new Error('this module runs as a benchmark child (fork with IPC)');
  const send = (message: Record<string, unknown>) => process.send!(message);
  process.on('SIGTERM', () => process.exit(0));
  // The parent going away must not leave servers or workers behind.
  process.on('disconnect', () => process.exit(0));
  const readyInfo = await init();
  process.on('message', (raw) => {
    const message = raw as Record<string, unknown>;
    handle(message).then(
      (answer) => send({ ...answer, id: message.id }),
      (error: unknown) =>
        send({
          type: 'error',
          id: message.id,
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  });
  send({ type: 'ready', ...readyInfo });
}
