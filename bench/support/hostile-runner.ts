/**
 * Runs the hostile-service suite (docs/reliability.md "Hostile service"): for each attack of
 * `hostile-attacks.ts`, fresh pipeline resources in the local emulators, the hostile service set to
 * misbehave, and one or more cold "containers" (`hostile-worker.ts`, the handlers bundled as CDK bundles
 * them, each a process of its own held to a 256 MB function's heap) running the real fetch-result or
 * poll path. It records the outcome, the peak RSS growth (VmHWM), the requests the service saw and the
 * wall time, searches every captured log line, error and event for the planted personal data and
 * secrets, reads back any stored result as `idv results get --out` would, and lists every broken promise.
 * Used by `npm run chaos -- --hostile` (`bench/hostile.ts`) and test/integration/hostile-service.test.ts.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { measureBundle } from '../../infra/bundling/bundle-size';
import { clientConfig } from '../../local/client-config';
import { type LocalAws, startLocalAws } from '../../local/local-aws';
import { createPipelineResources, type PipelineResources } from '../../local/pipeline-resources';
import { downloadResult, getResult, withFullDocument } from '../../shared/queries/results';
import { benchEnv } from './bench-env';
import { ATTACKS, type Attack, plantedStrings, type Scale } from './hostile-attacks';
import { type HostileCounts, type HostileService, startHostileService } from './hostile-service';
import type { HostileMeasured } from './hostile-worker';
import { formatTable, mib, round } from './stats';

/** The promise on memory: peak RSS growth of any attack (bytes). */
export const RSS_GROWTH_LIMIT = 128 * 1024 * 1024;
/** A 256 MB function's heap (`--max-old-space-size`). */
const FUNCTION_HEAP_MB = 256;
/** Kills a worker past this RSS, to keep the shared machine alive; its figure then reads "≥". */
const DEFAULT_RSS_CAP_MB = 3 * 1024;
/** Longest an attack may run before its workers are killed. */
const DEFAULT_CAP_MS = 120_000;

/** Options of {@link runHostile}. */
export interface HostileOptions {
  scale: Scale;
  /** Names of the attacks to run. @default all */
  only?: readonly string[];
  /** @default 120 s */
  capMs?: number;
  /** @default 3 GiB */
  rssCapMb?: number;
  /**
   * Counts RSS growth past 128 MB as a broken promise. `npm test` turns it off: its small bodies say
   * nothing about memory (the bench does), and its figures would depend on the machine. @default true
   */
  checkMemory?: boolean;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What one attack measured. */
export interface AttackFigures {
  attack: string;
  what: string;
  /** `stored`, `unavailable`, `refused <REASON>`, `error <Name> <status>`, `crashed: …`; one per container. */
  outcome: string;
  /** Largest peak RSS growth of its containers (bytes); `atLeast` when a container was killed first. */
  rssGrowthBytes: number;
  atLeast: boolean;
  requests: HostileCounts;
  /** Longest container's wall time (ms). */
  wallMs: number;
  /** `where:what` of each planted string found (`logs:accessToken`, `events:name`, …). */
  seen: string[];
  /** Every broken promise, one line each. */
  violations: string[];
}

/** A shared setup for several attacks: the emulators, the service and the bundled worker. */
export interface HostileHarness {
  readonly aws: LocalAws;
  readonly service: HostileService;
  run(attack: Attack, scale: Scale, options?: Omit<HostileOptions, 'scale' | 'only'>): Promise<AttackFigures>;
  close(): Promise<void>;
}

/** Starts the emulators and the hostile service and bundles the worker. */
export async function startHostileHarness(): Promise<HostileHarness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'idv-hostile-'));
  const aws = await startLocalAws();
  const service = await startHostileService();
  const worker = path.join(dir, 'hostile-worker.mjs');
  await measureBundle('bench/support/hostile-worker.ts', worker);
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
  const s3 = new S3Client({ ...clientConfig(aws, 's3'), forcePathStyle: true });
  let runs = 0;
  return {
    aws,
    service,
    run: (attack, scale, options = {}) =>
      runAttack(attack, scale, options, { aws, service, worker, dynamo, s3, dir, run: ++runs }),
    async close() {
      dynamo.destroy();
      s3.destroy();
      await service.close().catch(() => undefined);
      await aws.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the suite; never throws for one attack's failure (that is a row with violations). */
export async function runHostile(options: HostileOptions): Promise<AttackFigures[]> {
  const log = options.log ?? (() => undefined);
  const harness = await startHostileHarness();
  try {
    const rows: AttackFigures[] = [];
    for (const attack of ATTACKS) {
      if (options.only && !options.only.includes(attack.name)) continue;
      log(`hostile: ${attack.name} (${attack.what})`);
      const row = await harness.run(attack, options.scale, options);
      log(
        `  ${row.outcome}; RSS +${mib(row.rssGrowthBytes)} MiB; ${round(row.wallMs / 1000, 1)} s${row.violations.length ? `; BROKEN: ${row.violations.join('; ')}` : ''}`,
      );
      rows.push(row);
    }
    return rows;
  } finally {
    await harness.close();
  }
}

interface RunContext {
  aws: LocalAws;
  service: HostileService;
  worker: string;
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  dir: string;
  run: number;
}

/** What one container did. */
interface ContainerRun {
  measured?: HostileMeasured;
  /** Why the container ended without an answer. */
  death?: string;
  rssBefore?: number;
  /** Highest VmHWM / VmRSS the parent saw (bytes). */
  seenPeak: number;
  wallMs: number;
  /** Parsed ERROR log lines (bounded). */
  errorLines: Record<string, unknown>[];
}

async function runAttack(
  attack: Attack,
  scale: Scale,
  options: Omit<HostileOptions, 'scale' | 'only'>,
  ctx: RunContext,
): Promise<AttackFigures> {
  const { aws, service } = ctx;
  const resources = await createPipelineResources(aws, {
    prefix: `idv-hostile-${ctx.run}`,
    credentials: service.credentials,
    visibilityTimeoutSeconds: 900,
    maxReceiveCount: 3,
  });
  const planted = plantedStrings(service);
  const seen = new Set<string>();
  const scanner = (where: string) => plantedScanner(planted, (name) => seen.add(`${where}:${name}`));
  service.setBehaviour(attack.behaviour(scale, service));
  service.resetCounts();
  const eventsBefore = aws.events.entries().length;
  const env = {
    ...benchEnv(aws, resources, { serviceUrl: service.url }),
    POWERTOOLS_LOG_LEVEL: process.env.HOSTILE_LOG_LEVEL ?? 'INFO',
    POWERTOOLS_TRACE_ENABLED: 'false',
  };
  const containers = attack.containers?.(scale) ?? 1;
  const resultIds = Array.from({ length: containers }, (_, i) => `hostile-${attack.name}-${ctx.run}-${i}`);
  const logs = scanner('logs');
  const runs = await Promise.all(
    resultIds.map((resultId) =>
      runContainer(ctx.worker, env, logs, {
        request:
          attack.path === 'poll'
            ? { type: 'poll', invocationMs: attack.invocationMs?.(scale) ?? 90_000 }
            : {
                type: 'handle',
                resultId,
                hints: attack.hints ?? {},
                invocationMs: attack.invocationMs?.(scale) ?? 90_000,
                ...(attack.gcEveryMs && { gcEveryMs: attack.gcEveryMs }),
              },
        capMs: options.capMs ?? DEFAULT_CAP_MS,
        rssCapBytes: (options.rssCapMb ?? DEFAULT_RSS_CAP_MB) * 1024 * 1024,
      }),
    ),
  );
  logs.end();
  const errors = scanner('error');
  for (const run of runs) {
    if (run.measured?.error) errors.push(run.measured.error.message);
    for (const line of run.errorLines) errors.push(JSON.stringify(line.error ?? ''));
  }
  const events = aws.events.entries().slice(eventsBefore);
  const eventScan = scanner('events');
  for (const event of events) eventScan.push(JSON.stringify(event));

  const violations: string[] = [];
  const outcomes: string[] = [];
  for (const [i, run] of runs.entries()) {
    const resultId = resultIds[i]!;
    const outcome = await outcomeOf(attack, run, resultId, resources, ctx, violations);
    outcomes.push(outcome);
    const announced = events.filter((e) => e.detail.resultId === resultId);
    checkOutcome(attack, outcome, announced.length, violations);
  }
  const requests = service.counts();
  const growth = Math.max(...runs.map(growthOf));
  const atLeast = runs.some((r) => !r.measured);
  const wallMs = Math.max(...runs.map((r) => r.wallMs));
  if (growth > RSS_GROWTH_LIMIT)
    violations.push(`peak RSS grew ${atLeast ? '≥ ' : ''}${mib(growth)} MiB (> 128)`);
  if (seen.size > 0) violations.push(`planted strings seen: ${[...seen].join(', ')}`);
  if (attack.retried && requests.result < 2)
    violations.push(`the ${requests.result === 1 ? '5xx was not retried' : 'result was never asked for'}`);
  const maxWall = attack.maxWallMs?.(scale);
  if (maxWall !== undefined && wallMs > maxWall)
    violations.push(`took ${round(wallMs / 1000, 1)} s (> ${maxWall / 1000} s)`);
  const maxTokens = attack.maxTokenRequestsPerContainer;
  if (maxTokens !== undefined && requests.token > maxTokens * containers)
    violations.push(`${requests.token} token requests for ${containers} containers (> ${maxTokens} each)`);
  return {
    attack: attack.name,
    what: attack.what,
    outcome: summarize(outcomes),
    rssGrowthBytes: growth,
    atLeast,
    requests,
    wallMs,
    seen: [...seen],
    violations: [...new Set(violations)],
  };
}

function growthOf(run: ContainerRun): number {
  if (run.measured) return run.measured.hwm - run.measured.rssBefore;
  return run.rssBefore === undefined ? 0 : Math.max(0, run.seenPeak - run.rssBefore);
}

/** `a ×3, b` from a list of outcomes. */
function summarize(outcomes: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([o, n]) => (n > 1 ? `${o} ×${n}` : o)).join(', ');
}

/** The outcome of one container, from what the pipeline left in the emulators and its log lines. */
async function outcomeOf(
  attack: Attack,
  run: ContainerRun,
  resultId: string,
  resources: PipelineResources,
  ctx: RunContext,
  violations: string[],
): Promise<string> {
  if (run.death) return `crashed: ${run.death}`;
  if (attack.path === 'poll') {
    const error = run.measured?.error;
    return error ? `error ${error.name}` : 'polled';
  }
  const deps = {
    dynamo: ctx.dynamo,
    s3: ctx.s3,
    tableName: resources.tableName,
    bucketName: resources.bucketName,
  };
  const item = await getResult(deps, resultId);
  if (item?.status === 'UNAVAILABLE') return 'unavailable';
  if (item?.status === 'STORED') {
    const problem = await readBackProblem(deps, item, ctx);
    if (problem) violations.push(`stored result does not read back: ${problem}`);
    return problem ? 'stored (inconsistent)' : 'stored';
  }
  const line = run.errorLines.at(-1);
  if (!line) return run.measured?.failed ? 'failed (no error line)' : 'nothing stored, no error';
  if (typeof line.reason === 'string') return `refused ${line.reason}`;
  const error = (line.error ?? {}) as { name?: unknown; status?: unknown };
  return `error ${String(error.name ?? 'unknown')}${typeof error.status === 'number' ? ` ${error.status}` : ''}`;
}

/**
 * Why a stored result would not read back as announced, or undefined: `idv results get --out`'s download
 * (every object's SHA-256 against the item), the item's object count, the objects in S3 under the result.
 */
async function readBackProblem(
  deps: Parameters<typeof getResult>[0],
  found: NonNullable<Awaited<ReturnType<typeof getResult>>>,
  ctx: RunContext,
): Promise<string | undefined> {
  const out = mkdtempSync(path.join(ctx.dir, 'out-'));
  try {
    const item = await withFullDocument(deps, found);
    const files = await downloadResult(deps, item, out);
    const objects = item.objects ?? [];
    if (item.objectCount !== undefined && item.objectCount !== objects.length)
      return `objectCount ${item.objectCount} for ${objects.length} objects`;
    const prefix = item.resultKey!.slice(0, item.resultKey!.lastIndexOf('/') + 1);
    const listed = await ctx.s3.send(new ListObjectsV2Command({ Bucket: deps.bucketName, Prefix: prefix }));
    const inS3 = (listed.Contents ?? []).length;
    if (inS3 !== files.length) return `${inS3} objects in S3 for ${files.length} described`;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.name : 'read-back failed';
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Adds the broken promises of an outcome. */
function checkOutcome(attack: Attack, outcome: string, announced: number, violations: string[]): void {
  const stored = outcome.startsWith('stored');
  const crashed =
    outcome.startsWith('crashed') || outcome.startsWith('nothing') || outcome.startsWith('failed');
  if (crashed) violations.push(`no named outcome (${outcome})`);
  if (announced > 1) violations.push(`${announced} events for one result`);
  if (announced > 0 && !stored && outcome !== 'unavailable') violations.push(`announced but ${outcome}`);
  if (attack.path === 'poll') return;
  if ((stored || outcome === 'unavailable') && announced === 0)
    violations.push(`${outcome} but not announced`);
  switch (attack.expect) {
    case 'stored':
      if (!stored) violations.push(`not stored (${outcome})`);
      break;
    case 'unavailable':
      if (outcome !== 'unavailable') violations.push(`a 404 not recorded as UNAVAILABLE (${outcome})`);
      break;
    case 'not-stored':
      if (stored || outcome === 'unavailable') violations.push(`${outcome}, expected a refusal or an error`);
      break;
    case 'refused':
      if (!outcome.startsWith('refused')) violations.push(`not refused with a reason (${outcome})`);
      break;
    case 'stored-or-refused':
      if (!stored && !outcome.startsWith('refused') && !crashed)
        violations.push(`neither stored nor refused with a reason (${outcome})`);
      break;
    case 'named':
      break;
  }
}

/** A search for planted strings across chunks of a stream of text. */
interface PlantedScanner {
  push(text: string): void;
  end(): void;
}

function plantedScanner(planted: Record<string, string>, found: (name: string) => void): PlantedScanner {
  const longest = Math.max(...Object.values(planted).map((s) => s.length));
  let carry = '';
  return {
    push(text) {
      const window = carry + text;
      for (const [name, value] of Object.entries(planted)) if (window.includes(value)) found(name);
      carry = window.slice(-(longest - 1));
    },
    end() {
      carry = '';
    },
  };
}

/** Forks one worker, sends it one request and waits for its answer, its death or the cap. */
async function runContainer(
  file: string,
  env: Record<string, string>,
  logs: PlantedScanner,
  run: { request: Record<string, unknown>; capMs: number; rssCapBytes: number },
): Promise<ContainerRun> {
  const child: ChildProcess = fork(file, [], {
    execArgv: [`--max-old-space-size=${FUNCTION_HEAP_MB}`, '--expose-gc'],
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const result: ContainerRun = { seenPeak: 0, wallMs: 0, errorLines: [] };
  let tail = '';
  let lineBuffer = '';
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    logs.push(text);
    tail = (tail + text).slice(-4000);
    // ERROR lines (JSON, one per line), kept bounded.
    lineBuffer += text;
    let newline = lineBuffer.indexOf('\n');
    while (newline >= 0) {
      const line = lineBuffer.slice(0, newline);
      lineBuffer = lineBuffer.slice(newline + 1);
      if (line.includes('"level":"ERROR"') && result.errorLines.length < 50) {
        try {
          result.errorLines.push(JSON.parse(line.slice(0, 64 * 1024)) as Record<string, unknown>);
        } catch {
          result.errorLines.push({ error: { name: 'unparsable log line' } });
        }
      }
      newline = lineBuffer.indexOf('\n');
    }
    if (lineBuffer.length > 64 * 1024) lineBuffer = lineBuffer.slice(-64 * 1024);
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  let killedFor: string | undefined;
  const watchdog = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
      if (result.rssBefore !== undefined) result.seenPeak = Math.max(result.seenPeak, hwm, rss);
      if (rss > run.rssCapBytes && !killedFor) {
        killedFor = `killed at RSS ${mib(rss)} MiB`;
        child.kill('SIGKILL');
      }
    } catch {
      // Gone; the exit handler tells.
    }
  }, 5);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      const oom = /heap out of memory|Allocation failed|ERR_STRING_TOO_LONG/i.exec(tail);
      resolve(killedFor ?? (oom ? `out of memory (${oom[0]})` : `exited (${signal ?? code})`));
    });
  });
  const started = performance.now();
  let cap: NodeJS.Timeout | undefined;
  try {
    const answer = await new Promise<HostileMeasured | string>((resolve) => {
      child.on('message', (raw) => {
        const message = raw as Record<string, unknown>;
        if (message.type === 'ready') child.send({ ...run.request, id: 1 });
        else if (message.type === 'started') result.rssBefore = Number(message.rssBefore);
        else if (message.type === 'measured') resolve(message as unknown as HostileMeasured);
        else if (message.type === 'error') resolve(`worker error: ${String(message.message).slice(0, 200)}`);
      });
      exited.then(resolve);
      cap = setTimeout(() => {
        killedFor = `timed out after ${run.capMs / 1000} s`;
        child.kill('SIGKILL');
      }, run.capMs);
    });
    result.wallMs = typeof answer === 'string' ? performance.now() - started : answer.ms;
    if (typeof answer === 'string') result.death = answer;
    else result.measured = answer;
  } finally {
    clearTimeout(cap);
    clearInterval(watchdog);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  return result;
}

/** The rows as a table. */
export function hostileTable(rows: readonly AttackFigures[]): string {
  return formatTable(
    ['attack', 'outcome', 'RSS + MiB', 'token', 'poll', 'result', 's', 'promise'],
    rows.map((r) => [
      r.attack,
      r.outcome,
      `${r.atLeast ? '≥' : ''}${mib(r.rssGrowthBytes)}`,
      r.requests.token,
      r.requests.poll,
      r.requests.result,
      round(r.wallMs / 1000, 1),
      r.violations.length === 0 ? 'kept' : `BROKEN: ${r.violations.join('; ')}`,
    ]),
  );
}
