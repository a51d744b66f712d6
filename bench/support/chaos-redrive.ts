/**
 * The chaos suite's redrive scenarios and its last check (docs/reliability.md, "Every message ends
 * somewhere you can see"):
 *
 * - **redrive after a 404**: results whose fetches fail (the simulator serves an image `data` that is not
 *   base64: DATA_NOT_BASE64) until the service deletes them (its retention passes), then redriven: each
 *   must end UNAVAILABLE and announced, like a result the service never knew;
 * - **redrive after an erasure**: stored results erased on request (by `eraseResult`, as `idv results erase`
 *   does it), then redriven: each must stay erased
 *   — no item, its erasure record, no event again;
 * - **reconcile**: every resultId any message named (each SendMessage the handlers made, counted at the SQS
 *   proxy, and every message the harness sent itself) ends STORED, UNAVAILABLE, ERASED or in the DLQ,
 *   checked by the core of `idv results reconcile`.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdvClient } from '../../shared/client';
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import { type ErasureDeps, eraseResult } from '../../shared/erasure/erase-result';
import { DETAIL_TYPES } from '../../shared/events/names';
import { dlqIds, reconcile, storeEnds } from '../../shared/queries/reconcile';
import { ErasureRecords } from '../../shared/store/erasure-record';
import type { startSimulator } from '../../simulator/server';
import type { AwsFaultProxy } from './aws-fault-proxy';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** The simulator's retention in the chaos run: short, so passing it deletes only what exists by then. */
export const CHAOS_RETENTION_MS = 86_400_000;

/** Sends `{ resultId, source: "redrive" }`, as `idv dlq redrive` does. */
export async function sendRedrive(sqs: SQSClient, queueUrl: string, resultId: string): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify({ resultId, source: 'redrive' }),
    }),
  );
}

/**
 * Creates `count` results whose fetches fail as DATA_NOT_BASE64, waits until each failed at least twice
 * (they leave a STORED publication record without an item), lets the service's retention pass (it
 * deletes them: 404 from now on), and redrives each. Runs before the main load, so the retention passes
 * before any other result exists. Returns their resultIds (each must end UNAVAILABLE).
 */
export async function failThenGone(ctx: {
  sim: Simulator;
  upstream: IdvClient;
  sqs: SQSClient;
  queueUrl: string;
  count: number;
  seed: number;
  deadline: number;
  say: (line: string) => void;
}): Promise<string[]> {
  const gone: string[] = [];
  for (let i = 0; i < ctx.count; i++) {
    const customerReference = `chaos-gone-${ctx.seed}-${i}`;
    // Set before the transaction exists: a `mock-test` result is announced as soon as it is created.
    ctx.sim.control.setResultFault({ customerReference, kind: 'dataNotBase64', fetches: 1000 });
    const { transactionId } = await ctx.upstream.createSecureLink(
      { product: 'IDV_STANDARD', disableCommunication: true, customerReference },
      { mockTest: 'APPROVED' },
    );
    const resultId = ctx.sim.control.resultIdsOf(transactionId)[0];
    if (resultId) gone.push(resultId);
  }
  const fetches = () => ctx.sim.control.stats().resultFetches;
  while (gone.some((id) => (fetches()[id] ?? 0) < 2) && Date.now() < ctx.deadline) {
    ctx.say(
      `failing fetches before the 404: ${gone.filter((id) => (fetches()[id] ?? 0) >= 2).length}/${gone.length}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  ctx.sim.control.advanceTime(CHAOS_RETENTION_MS + 1000);
  for (const id of gone) await sendRedrive(ctx.sqs, ctx.queueUrl, id);
  return gone;
}

/** What {@link eraseThenRedrive} needs to reach the store. */
export interface ErasureContext {
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
  queueUrl: string;
  tableName: string;
  bucketName: string;
  markersTableName: string;
}

/**
 * Erases each of `resultIds` (stored and announced by now) with the erasure `idv results erase` runs
 * (`eraseResult`: the ERASING record, the fence, the objects, the items, the ERASED record; no projection
 * or journal in this bench, and its Erased event goes nowhere), then redrives it.
 */
export async function eraseThenRedrive(ctx: ErasureContext, resultIds: readonly string[]): Promise<void> {
  const deps: ErasureDeps = {
    dynamo: ctx.dynamo,
    s3: ctx.s3,
    tableName: ctx.tableName,
    bucketName: ctx.bucketName,
    dialect: 'local',
    markersTableName: ctx.markersTableName,
    reaches: { projection: { find: async () => [], remove: async () => 0 } },
    receipt: { local: true, analytics: false, bounds: DEFAULT_COPY_BOUNDS },
    events: { publish: async () => undefined },
  };
  for (const id of resultIds) {
    await eraseResult(deps, id, { principal: 'chaos', selectedBy: 'result-id' });
    await sendRedrive(ctx.sqs, ctx.queueUrl, id);
  }
}

/** The Stored events per resultId among `events` (the local bus's entries). */
export function storedEvents(
  events: readonly { 'detail-type': string; detail: unknown }[],
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    const id = (event.detail as { resultId?: string }).resultId;
    if (id && event['detail-type'] === DETAIL_TYPES.resultStored) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/**
 * Violations of the erasure redrive: an item back, no erasure record, or a Stored event published after the
 * erasure (`before`: the Stored events per id when the erasures began).
 */
export async function erasedViolations(
  ctx: ErasureContext,
  erased: readonly string[],
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Promise<string[]> {
  const violations: string[] = [];
  const ends = await storeEnds(ctx.dynamo, ctx.tableName, erased);
  const records = new ErasureRecords(ctx.dynamo, ctx.tableName);
  for (const id of erased) {
    if (ends.get(id) !== 'ERASED')
      violations.push(`${id}: erased, then redriven: ends ${ends.get(id) ?? 'nowhere'}`);
    if ((await records.get(id))?.state !== 'ERASED') violations.push(`${id}: erased, but no ERASED record`);
    if ((after.get(id) ?? 0) > (before.get(id) ?? 0))
      violations.push(`${id}: announced again after its erasure`);
  }
  return violations;
}

/**
 * The resultIds that ended nowhere: every id the handlers' SendMessage calls named (`sqsProxy`) and the
 * harness's own (`alsoEnqueued`), against the results table and the DLQ — the core of
 * `idv results reconcile`.
 */
export async function unaccountedIds(ctx: {
  dynamo: DynamoDBDocumentClient;
  sqs: SQSClient;
  tableName: string;
  dlqUrl: string;
  sqsProxy: AwsFaultProxy;
  alsoEnqueued: Iterable<string>;
}): Promise<string[]> {
  const enqueued = new Set([
    ...ctx.sqsProxy.resultIds('SendMessage'),
    ...ctx.sqsProxy.resultIds('SendMessageBatch'),
    ...ctx.alsoEnqueued,
  ]);
  const ends = await storeEnds(ctx.dynamo, ctx.tableName, enqueued);
  const dlq = await dlqIds(ctx.sqs, ctx.dlqUrl);
  return reconcile({ enqueued, ends, dlq }).unaccounted;
}
