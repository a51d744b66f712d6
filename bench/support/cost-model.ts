/**
 * The full cost of one result, per 1,000 results, at the list prices of `prices.ts`: every service a
 * result touches, from the webhook to the analytics table, storage for the whole retention and the logs
 * and traces it leaves (docs/benchmarks.md, "Full cost per 1,000 results"). Pure arithmetic: the size
 * bench measures the function (time, CPU, peak memory, requests, log bytes), `cost-section.ts` adds the
 * rest of the run's figures and the stated assumptions, and this module multiplies. Each line carries
 * its arithmetic, so a reader can redo it.
 */
import type { StorageClassSettings } from '../../infra/idv-pipeline-settings';
import {
  lifeDaysOf,
  type ObjectCost,
  type ObjectLife,
  objectCost,
  S3_STORAGE_PRICES,
  type StorageOption,
  type StoragePlan,
  storagePlan,
} from '../../shared/storage-plan';
import { LAMBDA_MB_PER_VCPU, PRICES, type RequestCounts, readUnitsOf, sum } from './prices';

/** What the bench measured of one function handling one result (fetch-result, or its naive peer). */
export interface MeasuredRun {
  /** Wall time and CPU time on this machine (ms). */
  ms: number;
  cpuMs: number;
  /** Peak RSS of the process (bytes): the Lambda memory it needs. */
  peakRssBytes: number;
  /** Requests per service and operation. */
  requests: RequestCounts;
  /** Bytes written to stdout (log lines, metrics). */
  logBytes: number;
  /** Size of the DynamoDB item as DynamoDB counts it, and the indexes holding it. */
  itemBytes: number;
  indexesWritten: number;
}

/** The result itself. */
export interface ResultShape {
  images: number;
  /** Decoded bytes per image. */
  imageBytes: number;
}

/** How the stack is configured and used: the figures a run cannot measure, printed beside the total. */
export interface CostAssumptions {
  /** Days results are kept (S3 expiry, DynamoDB TTL, event archive). */
  retentionDays: number;
  /** Days CloudWatch keeps the function logs; the S3 access logs are kept max(this, 90). */
  logRetentionDays: number;
  /** Memory of fetch-result (MB). */
  memoryMb: number;
  /** Steady results per second: decides X-Ray's sampled share and Firehose's batch sizes. */
  resultsPerSecond: number;
  /** Functions a result passes that record X-Ray traces (webhook, fetch-result: tracing `active`). */
  tracedFunctions: number;
  /** Share of results that meet a cold fetch-result (its INIT is billed, it reads its secrets). */
  coldStartShare: number;
  /** Seconds of INIT a cold fetch-result is billed for. */
  initSeconds: number;
  /** Share of results the poll also enqueues before fetch-result removed them at the service. */
  pollEnqueueShare: number;
  /** The webhook function: CPU per request (ms, measured by the webhook bench) and wait (ms). */
  webhookCpuMs: number;
  webhookWaitMs: number;
  /** The webhook stage has the WAF web ACL (production's default). */
  waf: boolean;
  /** S3 Bucket Keys on the data bucket (infra/constructs/data-bucket.ts sets them). */
  bucketKeys: boolean;
  /**
   * The data bucket's storage plan settings (`storageClasses`: shared/storage-plan.ts), or `false`: every
   * object stays in S3 Standard (the naive peer's bucket).
   */
  storageClasses: false | StorageClassSettings;
  /** Full reads of each stored object in its first day (a downstream system, a reviewer): in Standard. */
  earlyReadsPerObject: number;
  /** Full reads of each stored object after its first day, whatever the class (a dispute, an audit). */
  lateReadsPerObject: number;
  /** Share of results erased on request before their retention ends, and the day they are. */
  erasedShare: number;
  erasedAtDay: number;
  /** Bytes of one result event (EventBridge, the archive, Firehose). */
  eventBytes: number;
  /** Log bytes per invocation outside the function's own lines: Lambda's JSON platform.start/report. */
  platformLogBytes: number;
  /** The webhook's own log bytes per request and the API Gateway access log line. */
  webhookLogBytes: number;
  accessLogBytes: number;
}

/** One service's share of 1,000 results. */
export interface CostLine {
  service: string;
  usd: number;
  arithmetic: string;
}

/** The full cost per 1,000 results. */
export interface FullCost {
  lines: CostLine[];
  total: number;
  /** Memory the run was billed at (MB): the configured memory, or more when its peak RSS needs it. */
  memoryMb: number;
}

/** Days in the average month (S3, DynamoDB and CloudWatch bill storage per GB-month). */
const DAYS_PER_MONTH = 365 / 12;
/** Bytes in a GB as AWS bills them (2^30). */
const GB = 1024 ** 3;
/** A blob above this is staged as a multipart upload and copied (docs/pipeline.md). */
const MULTIPART_BYTES = 5 * 1024 * 1024;
/** Days a deleted staging object stays as a noncurrent version (1 day, counted from the next midnight). */
const STAGING_NONCURRENT_DAYS = 1.5;
/** A server access log record of the data bucket (one per request). */
const ACCESS_LOG_RECORD_BYTES = 350;
/** Bytes DynamoDB adds to every item, and the key-only copy an index holds. */
const DYNAMO_ITEM_OVERHEAD = 100;
const DYNAMO_INDEX_ITEM_BYTES = 200;
/** The publication record beside each item (shared/store/publication.ts: under 200 bytes). */
const PUBLICATION_RECORD_BYTES = 200;
/** Firehose bills each record rounded up to this. */
const FIREHOSE_RECORD_ROUNDING = 5 * 1024;
/** The transform buffer (infra/constructs/analytics-iceberg-delivery.ts): 1 MB or 60 s. */
const TRANSFORM_BUFFER_BYTES = 1024 * 1024;
const TRANSFORM_BUFFER_SECONDS = 60;
/** A transform invocation: a few ms of parsing per batch at 256 MB (estimated, not measured here). */
const TRANSFORM_SECONDS = 0.02;
const TRANSFORM_MEMORY_MB = 256;
/** Lambda's sampling for active tracing: 1 request a second, then 5 % (not configurable for Lambda). */
const XRAY_RESERVOIR_PER_SECOND = 1;
const XRAY_FIXED_RATE = 0.05;

const usd = (value: number) => `$${value.toPrecision(3)}`;
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/**
 * The share of invocations Lambda's active tracing records at a steady rate: everything up to one a
 * second (the reservoir), 5 % of the rest.
 */
export function xraySampledShare(perSecond: number): number {
  if (perSecond <= XRAY_RESERVOIR_PER_SECOND) return 1;
  return (XRAY_RESERVOIR_PER_SECOND + XRAY_FIXED_RATE * (perSecond - XRAY_RESERVOIR_PER_SECOND)) / perSecond;
}

/** The smallest Lambda memory (MB) that holds a measured peak RSS with 10 % headroom, at least `floor`. */
export function lambdaMemoryFor(peakRssBytes: number, floor: number): number {
  return Math.max(floor, Math.ceil(((peakRssBytes / 1024 / 1024) * 11) / 10));
}

/** Billed Lambda seconds: the waiting as it was, the CPU stretched by the vCPU share of `memoryMb`. */
export function lambdaSeconds(ms: number, cpuMs: number, memoryMb: number): number {
  const vcpu = Math.min(1, memoryMb / LAMBDA_MB_PER_VCPU);
  return Math.max(0, ms - cpuMs) / 1000 + cpuMs / 1000 / vcpu;
}

/** The expiry's noncurrent version is kept this many days (infra/constructs/data-bucket.ts). */
const NONCURRENT_DAYS = 1;

/** The plan of the data bucket under `a`, or undefined when it keeps every object in Standard. */
export function planOf(
  a: Pick<CostAssumptions, 'retentionDays' | 'storageClasses'>,
): StoragePlan | undefined {
  return a.storageClasses === false
    ? undefined
    : storagePlan({ retentionDays: a.retentionDays, noncurrentDays: NONCURRENT_DAYS, ...a.storageClasses });
}

/** Where the plan puts an object of `bytes`: the transition of its size band, else Standard. */
export function optionFor(plan: StoragePlan | undefined, bytes: number): StorageOption {
  const band = plan?.transitions.find(
    (t) =>
      bytes > t.objectSizeGreaterThan && (t.objectSizeLessThan === undefined || bytes < t.objectSizeLessThan),
  );
  return band
    ? { storageClass: band.storageClass, transitionDay: band.days }
    : { storageClass: 'STANDARD', transitionDay: 0 };
}

/** What a result's objects cost under one option: storage, transitions, reads (USD per result). */
export interface ResultStorage {
  option: StorageOption;
  objectBytes: number;
  /** Days from the write to the removal of the last version. */
  days: number;
  storage: number;
  transition: number;
  /** The first day's reads (GET in Standard) and the late reads (the class's GET and retrieval). */
  reads: number;
}

/**
 * A result's objects for the retention under `option`: each image priced by {@link objectCost} over its
 * life (the retention, the expiry at a midnight, the noncurrent day), the erased share deleted on
 * `erasedAtDay` (a class's minimum days still billed), plus the first day's reads in Standard.
 */
export function resultStorage(
  shape: ResultShape,
  option: StorageOption,
  a: Pick<
    CostAssumptions,
    'retentionDays' | 'earlyReadsPerObject' | 'lateReadsPerObject' | 'erasedShare' | 'erasedAtDay'
  >,
): ResultStorage {
  const days = lifeDaysOf(a.retentionDays, NONCURRENT_DAYS);
  const life: ObjectLife = { lifeDays: days, lateReads: a.lateReadsPerObject };
  const kept = objectCost(shape.imageBytes, option, life);
  const erased = objectCost(shape.imageBytes, option, { ...life, deletedAtDay: a.erasedAtDay });
  const mix = (pick: (c: ObjectCost) => number) =>
    shape.images * ((1 - a.erasedShare) * pick(kept) + a.erasedShare * pick(erased));
  const early = shape.images * a.earlyReadsPerObject * S3_STORAGE_PRICES.classes.STANDARD.get;
  return {
    option,
    objectBytes: shape.images * shape.imageBytes,
    days,
    storage: mix((c) => c.storage),
    transition: mix((c) => c.transition),
    reads: early + mix((c) => c.reads),
  };
}

/**
 * S3 storage per result for the retention: in Standard (the naive peer), under the data bucket's plan,
 * and under each instant class alone from the plan's transition day (what the plan weighed).
 */
export function storagePerResult(shape: ResultShape, a: CostAssumptions) {
  const plan = planOf(a);
  const standard = resultStorage(shape, { storageClass: 'STANDARD', transitionDay: 0 }, a);
  const planned = resultStorage(shape, optionFor(plan, shape.imageBytes), a);
  const alternatives = (plan?.options ?? []).map((option) => resultStorage(shape, option, a));
  return { plan, standard, planned, alternatives };
}

/**
 * Every service's cost of 1,000 results handled like `run`, under `a`; `coldStart` are the requests of a
 * cold start (the size bench's warm-up). The function is billed at the memory it needs to hold the run's
 * peak RSS, at least the configured memory (the naive peer needs more than the stack's 256 MB).
 */
export function fullCost(
  run: MeasuredRun,
  shape: ResultShape,
  a: CostAssumptions,
  coldStart: RequestCounts,
): FullCost {
  const k = 1000;
  const lines: CostLine[] = [];
  const add = (service: string, perResult: number, arithmetic: string) =>
    lines.push({ service, usd: k * perResult, arithmetic });

  // fetch-result (or the peer): its time at the memory its peak needs.
  const memoryMb = lambdaMemoryFor(run.peakRssBytes, a.memoryMb);
  const seconds = lambdaSeconds(run.ms, run.cpuMs, memoryMb);
  const gbs = (memoryMb / 1024) * seconds;
  add(
    'Lambda fetch-result',
    gbs * PRICES.lambdaGbSecond + PRICES.lambdaRequest,
    `${memoryMb} MB (peak RSS ${round(run.peakRssBytes / 1024 / 1024, 0)} MiB) × ${round(seconds, 3)} s = ${round(gbs, 4)} GB-s × $0.0000133334 + 1 request × $0.20/M`,
  );
  const initGbs = a.coldStartShare * (memoryMb / 1024) * a.initSeconds;
  add(
    'Lambda cold starts (INIT)',
    initGbs * PRICES.lambdaGbSecond,
    `${a.coldStartShare} of results × ${a.initSeconds} s INIT × ${memoryMb} MB = ${initGbs.toPrecision(3)} GB-s`,
  );

  // Ingress: the webhook through API Gateway (and WAF), its function, the poll's share.
  const webhookSeconds = lambdaSeconds(a.webhookCpuMs + a.webhookWaitMs, a.webhookCpuMs, 256);
  const webhook =
    PRICES.apiGatewayRestRequest +
    (a.waf ? PRICES.wafRequest : 0) +
    0.25 * webhookSeconds * PRICES.lambdaGbSecond +
    PRICES.lambdaRequest;
  add(
    'Webhook (API Gateway, WAF, Lambda)',
    webhook,
    `1 REST request × $3.50/M${a.waf ? ' + WAF $0.60/M' : ''} + 256 MB × ${round(webhookSeconds, 3)} s (${a.webhookCpuMs} ms CPU measured + ${a.webhookWaitMs} ms SendMessage) + $0.20/M`,
  );

  // SQS: send, receive, delete; a poll duplicate adds its own three (and its batch send is a 10th).
  const sqsRequests = 3 + a.pollEnqueueShare * 3;
  add('SQS', sqsRequests * PRICES.sqsRequest, `${round(sqsRequests, 2)} requests × $0.40/M`);

  // DynamoDB: what the run wrote and read, the poll's marker, and storage for the retention.
  const ddb = run.requests['DYNAMODB'];
  const itemUnits = Math.max(1, Math.ceil(run.itemBytes / 1024));
  const puts = sum(ddb, ['PutItem']);
  const updates = sum(ddb, ['UpdateItem']);
  const reads = readUnitsOf(ddb) + a.pollEnqueueShare;
  const writeUnits = puts * (itemUnits + run.indexesWritten) + updates + a.pollEnqueueShare;
  const storedBytes =
    run.itemBytes +
    DYNAMO_ITEM_OVERHEAD +
    run.indexesWritten * DYNAMO_INDEX_ITEM_BYTES +
    (updates > 0 ? PUBLICATION_RECORD_BYTES : 0);
  const months = a.retentionDays / DAYS_PER_MONTH;
  const dynamoStorage = (storedBytes / GB) * months * PRICES.dynamoStorageGbMonth;
  add(
    'DynamoDB',
    writeUnits * PRICES.dynamoWriteUnit + reads * PRICES.dynamoReadUnit + dynamoStorage,
    `${round(writeUnits, 2)} WRU × $0.625/M + ${round(reads, 2)} RRU × $0.125/M + ${storedBytes} B × ${round(months, 2)} months × $0.25/GB-month`,
  );

  // S3 requests as counted (DELETE is free), and the storage the retention keeps.
  const s3 = run.requests['S3'];
  const s3Puts = sum(s3, [
    'PutObject',
    'CopyObject',
    'UploadPart',
    'CreateMultipartUpload',
    'CompleteMultipartUpload',
    'PostObject',
  ]);
  const s3Free = sum(s3, ['DeleteObject', 'DeleteObjects', 'AbortMultipartUpload']);
  const s3Others = sum(s3) - s3Puts - s3Free;
  add(
    'S3 requests',
    s3Puts * PRICES.s3Put + s3Others * PRICES.s3Get,
    `${s3Puts} PUT-class × $0.005/1k + ${s3Others} other × $0.0004/1k (${s3Free} DELETE, free)`,
  );
  const { planned: storage } = storagePerResult(shape, a);
  const staged =
    sum(s3, ['CreateMultipartUpload']) > 0
      ? shape.images * (shape.imageBytes > MULTIPART_BYTES ? shape.imageBytes : 0)
      : 0;
  const stagedUsd = (staged / GB) * (STAGING_NONCURRENT_DAYS / DAYS_PER_MONTH) * PRICES.s3StandardGbMonth;
  const accessLogDays = Math.max(a.logRetentionDays, 90);
  const accessLogUsd =
    ((sum(s3) * ACCESS_LOG_RECORD_BYTES) / GB) * (accessLogDays / DAYS_PER_MONTH) * PRICES.s3StandardGbMonth;
  add(
    'S3 storage',
    storage.storage + stagedUsd + accessLogUsd,
    `${shape.images} × ${round(shape.imageBytes / 1024, 0)} KiB × ${storage.days} days (retention ${a.retentionDays} + expiry at midnight + 1 noncurrent day): ${classWords(storage.option)}; ${a.erasedShare} erased on day ${a.erasedAtDay}` +
      (staged > 0
        ? ` + ${round(staged / 1024 / 1024, 1)} MiB staged × ${STAGING_NONCURRENT_DAYS} noncurrent days`
        : '') +
      ` + ${sum(s3)} access log records × ${ACCESS_LOG_RECORD_BYTES} B × ${accessLogDays} days`,
  );

  const transitionPrice = S3_STORAGE_PRICES.classes[storage.option.storageClass].transition;
  add(
    'S3 transitions',
    storage.transition,
    storage.option.storageClass === 'STANDARD'
      ? 'none: every object stays in Standard'
      : `${shape.images} lifecycle transitions × $${round(transitionPrice * 1000, 3)}/1k (none for the erased share gone before day ${storage.option.transitionDay})`,
  );
  const late = S3_STORAGE_PRICES.classes[storage.option.storageClass];
  add(
    'S3 reads',
    storage.reads,
    `${shape.images} objects × (${a.earlyReadsPerObject} first-day GETs × $0.0004/1k + ${a.lateReadsPerObject} late reads × ($${round(late.get * 1000, 4)}/1k GET + $${late.retrievalGb}/GB retrieval))`,
  );

  // KMS: the secrets' Decrypt on each cold start; per object only without Bucket Keys.
  const coldSecretCalls = sum(coldStart['SECRETS_MANAGER'], ['GetSecretValue']);
  const objectKeys = sum(s3, ['PutObject', 'CopyObject', 'CreateMultipartUpload']);
  const kmsRequests = a.coldStartShare * coldSecretCalls + (a.bucketKeys ? 0 : objectKeys);
  add(
    'KMS',
    kmsRequests * PRICES.kmsRequest,
    `${a.coldStartShare} × ${coldSecretCalls} Decrypt per cold start` +
      (a.bucketKeys
        ? ' (S3 Bucket Keys: no request per object)'
        : ` + ${objectKeys} GenerateDataKey (one per object, no Bucket Keys)`) +
      ' × $0.03/10k',
  );
  const secretCalls = a.coldStartShare * coldSecretCalls + sum(run.requests['SECRETS_MANAGER']);
  add(
    'Secrets Manager',
    secretCalls * PRICES.secretsCall,
    `${a.coldStartShare} × ${coldSecretCalls} GetSecretValue per cold start + ${sum(run.requests['SECRETS_MANAGER'])} per warm result × $0.05/10k`,
  );

  // EventBridge: the events, and the archive that keeps them for the retention.
  const events = sum(run.requests['EVENTBRIDGE'], ['PutEvents']);
  const eventGb = (events * a.eventBytes) / GB;
  add(
    'EventBridge (events, archive)',
    events * PRICES.eventBridgeEvent +
      eventGb * (PRICES.eventBridgeArchiveGb + months * PRICES.eventBridgeArchiveStorageGbMonth),
    `${events} event × $1.00/M + ${a.eventBytes} B archived × ($0.10/GB + ${round(months, 2)} months × $0.023/GB-month)`,
  );

  // Analytics: Firehose ingestion (5 KB rounding) and the transform's share of an invocation.
  const firehoseBytes =
    events * Math.ceil(a.eventBytes / FIREHOSE_RECORD_ROUNDING) * FIREHOSE_RECORD_ROUNDING;
  const perBatch = Math.max(
    1,
    Math.min(TRANSFORM_BUFFER_BYTES / a.eventBytes, a.resultsPerSecond * TRANSFORM_BUFFER_SECONDS),
  );
  const transform =
    ((TRANSFORM_MEMORY_MB / 1024) * TRANSFORM_SECONDS * PRICES.lambdaGbSecond + PRICES.lambdaRequest) /
    perBatch;
  add(
    'Analytics (Firehose, transform)',
    (firehoseBytes / GB) * PRICES.firehoseIngestGb + transform,
    `${firehoseBytes} B (5 KB rounding) × $0.029/GB + 1/${round(perBatch, 1)} transform invocation (${TRANSFORM_SECONDS} s at ${TRANSFORM_MEMORY_MB} MB, estimated)`,
  );

  // CloudWatch Logs: the function's measured lines, Lambda's platform records, the webhook's and the
  // access log line; ingestion, then storage for the log retention (billed compressed: an upper bound).
  const logBytes =
    run.logBytes + a.platformLogBytes + a.webhookLogBytes + a.platformLogBytes + a.accessLogBytes;
  const logGb = logBytes / GB;
  add(
    'CloudWatch Logs',
    logGb * (PRICES.logsIngestGb + (a.logRetentionDays / DAYS_PER_MONTH) * PRICES.logsStorageGbMonth),
    `(${run.logBytes} B measured + 2 × ${a.platformLogBytes} B platform + ${a.webhookLogBytes} B webhook + ${a.accessLogBytes} B access log) × ($0.50/GB + ${a.logRetentionDays} days × $0.03/GB-month)`,
  );

  // X-Ray: a trace per traced function a result passes, at Lambda's sampled share for the rate.
  const share = xraySampledShare(a.resultsPerSecond);
  const traces = a.tracedFunctions * share;
  add(
    'X-Ray',
    traces * PRICES.xrayTraceRecorded,
    `${a.tracedFunctions} traced functions × ${round(share, 3)} sampled at ${a.resultsPerSecond}/s × $5.00/M recorded`,
  );

  return { lines, total: lines.reduce((n, line) => n + line.usd, 0), memoryMb };
}

/** Where an option keeps an object, in words with its price. */
function classWords(option: StorageOption): string {
  const c = S3_STORAGE_PRICES.classes[option.storageClass];
  if (option.storageClass === 'STANDARD') return `S3 Standard × $${c.gbMonth}/GB-month`;
  const min = c.minDays > 0 ? `, ${c.minDays} days and ${c.minBytes / 1024} KiB billed at least` : '';
  return `${option.transitionDay} day(s) in Standard, then ${option.storageClass} × $${c.gbMonth}/GB-month${min}`;
}

/**
 * Each instant option the plan weighed for `shape` (storage + transitions + reads per 1,000 results),
 * the plan's choice marked, or why a class was left out.
 */
export function storageOptions(shape: ResultShape, a: CostAssumptions): string {
  const s = storagePerResult(shape, { ...a, storageClasses: a.storageClasses || defaultPlanSettings(a) });
  const total = (r: ResultStorage) => usd(1000 * (r.storage + r.transition + r.reads));
  const chosen = s.planned.option.storageClass;
  return [
    ...s.alternatives.map(
      (r) =>
        `${r.option.storageClass}${r.option.storageClass === 'STANDARD' ? '' : ` from day ${r.option.transitionDay}`} ${total(r)}${r.option.storageClass === chosen ? ' (planned)' : ''}`,
    ),
    ...(s.plan?.excluded ?? []).map((e) => `${e.storageClass} left out: ${e.reason}`),
  ].join(', ');
}

/** The plan's settings the storage options are shown for when the plan is off: the reads assumed. */
function defaultPlanSettings(a: CostAssumptions): StorageClassSettings {
  return { standardDays: 1, lateReadsPerObject: a.lateReadsPerObject };
}
