/**
 * A simulator's state on disk, so a restart is not a loss (the simulator of `npm start` keeps it in
 * `<data-dir>/simulator/`): transactions (pending ones stay pending, a secure link keeps its key), access
 * and SDK tokens, poll records, result faults and the virtual clock's offset in `state.json`, and each
 * result document once in `results/<resultId>.json`. Every write is atomic (a temporary file, fsync,
 * rename, then fsync of the directory), files 0600 and directories 0700: a SIGKILL at any moment leaves
 * either the old or the new file, never a torn one.
 *
 * The store writes before each answer goes out (`simulator/server.ts`), so what a client was told
 * (a secureId, a transactionId, a removed poll record) is on disk first; and after a tick of the
 * lifecycle that completed or expired something. It writes only what changed (a poll or a repeated
 * result fetch changes nothing kept: the per-result fetch counts of `stats()` start again at zero).
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { VerificationResultDocument } from '../shared/api/schemas';
import type { ResultFault } from './faults';
import type { IssuedToken, SimulatorState, StoredResult, Transaction } from './state';
import type { RestoredState } from './types';

/** The state file's name in the store's directory. */
export const STATE_FILE = 'state.json';
const RESULTS_DIR = 'results';
const FORMAT = 1;

/** `state.json`: everything but the result documents. */
interface StateFile {
  format: number;
  offsetMs: number;
  /** The retention results were kept for (transactions older than it with no result left are dropped). */
  retentionMs?: number;
  createdCount: number;
  completedCount: number;
  tokensIssued: number;
  communicationStatus: SimulatorState['communicationStatus'];
  transactions: Transaction[];
  pending: string[];
  tokens: [string, IssuedToken][];
  sdkTokens: [string, string][];
  faceLinkTokens: [string, string][];
  results: Omit<StoredResult, 'doc'>[];
  resultFaults: ResultFault[];
}

/** Bytes survive JSON as `{ "$bytes": base64 }` (an upload's own bytes, if a transaction keeps them). */
function replacer(this: unknown, key: string, value: unknown): unknown {
  const raw = (this as Record<string, unknown>)[key];
  if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw).toString('base64') };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const bytes = (value as { $bytes?: unknown }).$bytes;
    if (keys.length === 1 && typeof bytes === 'string') return Buffer.from(bytes, 'base64');
  }
  return value;
}

/** Writes `text` to `file` atomically: a temporary file beside it, fsync, rename, fsync of the directory. */
export function writeFileAtomic(file: string, text: string): void {
  const dir = join(file, '..');
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  syncDirectory(dir);
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The persisted state of one simulator. */
export class StateStore {
  readonly #dir: string;
  readonly #state: SimulatorState;
  #lastState = '';
  /**
   * The JSON of completed transactions, which change no more (a new result or a new field would show in
   * the key): a save serialises only the open ones again.
   */
  readonly #completedJson = new WeakMap<Transaction, { key: string; json: string }>();
  /** Result documents on disk. */
  /** Each saved result's document as written: a document replaced since (an overturned verdict) is written again. */
  readonly #savedResults = new Map<string, object>();
  #fingerprint = '';

  constructor(dir: string, state: SimulatorState) {
    this.#dir = dir;
    this.#state = state;
    mkdirSync(join(dir, RESULTS_DIR), { recursive: true, mode: 0o700 });
    // Owner-only whatever made the directory: it holds tokens, link keys and results.
    chmodSync(dir, 0o700);
    chmodSync(join(dir, RESULTS_DIR), 0o700);
  }

  /**
   * Loads what an earlier run left into the (fresh) state; undefined when there was nothing. A damaged
   * state file is moved aside (named in a note) and the simulator starts empty.
   */
  load(): RestoredState | undefined {
    const file = join(this.#dir, STATE_FILE);
    this.#removeTemporaries();
    if (!existsSync(file)) return undefined;
    const notes: string[] = [];
    let saved: StateFile;
    try {
      saved = JSON.parse(readFileSync(file, 'utf8'), reviver) as StateFile;
      if (!isStateFile(saved)) throw new Error('not a state file of this format');
    } catch {
      const aside = `${file}.damaged-${Date.now()}`;
      renameSync(file, aside);
      notes.push(`the simulator's state file could not be read: moved to ${aside}, starting empty`);
      return { transactions: 0, open: 0, results: 0, notes };
    }
    const s = this.#state;
    const retained = new Set(saved.results.map((r) => r.resultId));
    for (const t of saved.transactions) {
      // A completed transaction whose every result is past retention is gone, as at the service (its
      // results were dropped by the last run's lifecycle): the state does not grow run after run.
      const old =
        saved.retentionMs !== undefined && t.createdAt + saved.retentionMs < s.now() + saved.offsetMs;
      if (t.state === 'completed' && !t.resultIds.some((id) => retained.has(id)) && old) {
        continue;
      }
      s.transactions.set(t.transactionId, t);
      if (t.secureId !== undefined) s.secureLinks.set(t.secureId, t.transactionId);
    }
    for (const id of saved.pending) {
      const t = s.transactions.get(id);
      if (t) s.pending.add(t);
    }
    for (const [token, issued] of saved.tokens) s.tokens.set(token, issued);
    for (const [token, id] of saved.sdkTokens) s.sdkTokens.set(token, id);
    for (const [token, id] of saved.faceLinkTokens) s.faceLinkTokens.set(token, id);
    let missing = 0;
    for (const r of saved.results) {
      const doc = this.#readResult(r.resultId);
      if (!doc) {
        missing++;
        continue;
      }
      s.results.set(r.resultId, { ...r, doc });
      this.#savedResults.set(r.resultId, doc);
    }
    if (missing > 0) notes.push(`${missing} result(s) of the simulator's state had no document: left out`);
    s.resultFaults.push(...saved.resultFaults);
    s.createdCount = saved.createdCount;
    s.completedCount = saved.completedCount;
    s.tokensIssued = saved.tokensIssued;
    s.communicationStatus = saved.communicationStatus;
    this.#removeStrayResults();
    // The virtual clock goes on where it was; transactions due meanwhile complete now.
    s.advance(Math.max(0, saved.offsetMs));
    this.save();
    return {
      transactions: s.transactions.size,
      open: [...s.transactions.values()].filter((t) => t.state !== 'completed').length,
      results: s.results.size,
      notes,
    };
  }

  /** Writes what changed since the last save: new result documents, then the state file. */
  save(): void {
    const s = this.#state;
    for (const [resultId, r] of s.results) {
      if (this.#savedResults.get(resultId) === r.doc) continue;
      writeFileAtomic(this.#resultFile(resultId), JSON.stringify(r.doc, replacer));
      this.#savedResults.set(resultId, r.doc);
    }
    const text = this.#stateText();
    if (text !== this.#lastState) {
      writeFileAtomic(join(this.#dir, STATE_FILE), text);
      this.#lastState = text;
    }
    // Results past retention: their documents go once the state no longer names them.
    for (const resultId of [...this.#savedResults.keys()]) {
      if (s.results.has(resultId)) continue;
      rmSync(this.#resultFile(resultId), { force: true });
      this.#savedResults.delete(resultId);
    }
    this.#fingerprint = this.#currentFingerprint();
  }

  /** Saves when the lifecycle changed something since the last save (cheap to call on every tick). */
  saveIfChanged(): void {
    if (this.#currentFingerprint() !== this.#fingerprint) this.save();
  }

  #currentFingerprint(): string {
    const s = this.#state;
    return [
      s.transactions.size,
      s.pending.size,
      s.completedCount,
      s.results.size,
      s.tokens.size,
      s.faceLinkTokens.size,
    ].join('/');
  }

  /** `state.json`'s text: the snapshot with each transaction's JSON (cached while completed). */
  #stateText(): string {
    const { transactions, ...rest } = this.#snapshot();
    const parts = transactions.map((t) => {
      if (t.state !== 'completed') return JSON.stringify(t, replacer);
      const key = `${t.resultIds.length}/${Object.keys(t).length}`;
      const cached = this.#completedJson.get(t);
      if (cached?.key === key) return cached.json;
      const json = JSON.stringify(t, replacer);
      this.#completedJson.set(t, { key, json });
      return json;
    });
    const head = JSON.stringify(rest, replacer);
    return `${head.slice(0, -1)},"transactions":[${parts.join(',')}]}`;
  }

  #snapshot(): StateFile {
    const s = this.#state;
    return {
      format: FORMAT,
      offsetMs: s.offsetMs,
      retentionMs: s.retentionMs,
      createdCount: s.createdCount,
      completedCount: s.completedCount,
      tokensIssued: s.tokensIssued,
      communicationStatus: s.communicationStatus,
      transactions: [...s.transactions.values()],
      pending: [...s.pending].map((t) => t.transactionId),
      tokens: [...s.tokens],
      sdkTokens: [...s.sdkTokens],
      faceLinkTokens: [...s.faceLinkTokens],
      results: [...s.results.values()].map(({ doc: _, ...r }) => r),
      resultFaults: s.resultFaults,
    };
  }

  #resultFile(resultId: string): string {
    // resultIds are the simulator's own UUIDs; anything else never becomes a file name.
    if (!/^[0-9a-f-]{36}$/.test(resultId)) throw new Error('not a resultId of the simulator');
    return join(this.#dir, RESULTS_DIR, `${resultId}.json`);
  }

  #readResult(resultId: string): VerificationResultDocument | undefined {
    try {
      return JSON.parse(
        readFileSync(this.#resultFile(resultId), 'utf8'),
        reviver,
      ) as VerificationResultDocument;
    } catch {
      return undefined;
    }
  }

  /** Documents no result names (written just before a kill, or of results past retention). */
  #removeStrayResults(): void {
    for (const name of readdirSync(join(this.#dir, RESULTS_DIR))) {
      const resultId = name.replace(/\.json$/, '');
      if (!this.#state.results.has(resultId)) rmSync(join(this.#dir, RESULTS_DIR, name), { force: true });
    }
  }

  /** Temporary files a kill left between their write and their rename. */
  #removeTemporaries(): void {
    for (const dir of [this.#dir, join(this.#dir, RESULTS_DIR)]) {
      for (const name of readdirSync(dir)) {
        if (name.endsWith('.tmp')) rmSync(join(dir, name), { force: true });
      }
    }
  }
}

/** Whether `value` has the shape `save` writes (so loading it cannot fail half-way). */
function isStateFile(value: unknown): value is StateFile {
  const v = value as Partial<Record<keyof StateFile, unknown>> | null;
  const arrays: (keyof StateFile)[] = [
    'transactions',
    'pending',
    'tokens',
    'sdkTokens',
    'faceLinkTokens',
    'results',
    'resultFaults',
  ];
  return (
    v !== null &&
    typeof v === 'object' &&
    v.format === FORMAT &&
    typeof v.offsetMs === 'number' &&
    arrays.every((name) => Array.isArray(v[name])) &&
    (v.transactions as unknown[]).every(
      (t) =>
        t !== null &&
        typeof t === 'object' &&
        typeof (t as Transaction).transactionId === 'string' &&
        Array.isArray((t as Transaction).resultIds) &&
        Array.isArray((t as Transaction).uploads),
    ) &&
    (v.results as unknown[]).every(
      (r) => r !== null && typeof r === 'object' && typeof (r as StoredResult).resultId === 'string',
    )
  );
}
