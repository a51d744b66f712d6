import { S3_STORAGE_PRICES } from '../../shared/storage-plan';

/**
 * AWS list prices the benches turn measured requests, bytes and seconds into (USD): the one place for
 * them. Region us-east-1 (US East, N. Virginia), on-demand/standard tiers, first pricing tier, free
 * tiers ignored; as of 2025-11 from the public price page named in {@link PRICE_SOURCES} for each price.
 * This machine has no network to re-check them: compare with those pages before quoting a figure, and
 * change `date` with any price.
 */
export const PRICES = {
  region: 'us-east-1',
  date: '2025-11',
  /** DynamoDB on-demand write request unit (1 KB of item written, per table or index write). */
  dynamoWriteUnit: 0.625 / 1e6,
  /** DynamoDB on-demand read request unit (4 KB strongly consistent). */
  dynamoReadUnit: 0.125 / 1e6,
  /** DynamoDB Standard table storage, per GB-month (items, index copies, 100 bytes of overhead each). */
  dynamoStorageGbMonth: 0.25,
  /** S3 Standard PUT, COPY, POST, LIST (UploadPart and the multipart calls are billed as PUT). */
  s3Put: 0.005 / 1e3,
  /**
   * S3 Standard GET and other requests (DELETE and CANCEL are free). The storage classes' prices
   * (Standard, Standard-IA, Glacier Instant Retrieval, Intelligent-Tiering: storage, GET, retrieval,
   * transitions, minimums) are in shared/storage-plan.ts, which the data bucket's plan uses too.
   */
  s3Get: S3_STORAGE_PRICES.classes.STANDARD.get,
  /** S3 Standard storage, first 50 TB, per GB-month. */
  s3StandardGbMonth: S3_STORAGE_PRICES.classes.STANDARD.gbMonth,
  /** EventBridge custom event (per 64 KB chunk). */
  eventBridgeEvent: 1 / 1e6,
  /** EventBridge archive: event data archived (processed), per GB. */
  eventBridgeArchiveGb: 0.1,
  /** EventBridge archive storage per GB-month. */
  eventBridgeArchiveStorageGbMonth: 0.023,
  /** SQS standard queue request (per 64 KB chunk). */
  sqsRequest: 0.4 / 1e6,
  /** Lambda Arm duration, per GB-second (the INIT phase of a cold start is billed too since 2025-08-01). */
  lambdaGbSecond: 0.0000133334,
  /** Lambda request. */
  lambdaRequest: 0.2 / 1e6,
  /** Secrets Manager API call (GetSecretValue, PutSecretValue). */
  secretsCall: 0.05 / 1e4,
  /** Secrets Manager secret, per month. */
  secretMonth: 0.4,
  /** KMS request (Decrypt, GenerateDataKey) on a symmetric key. */
  kmsRequest: 0.03 / 1e4,
  /** KMS customer managed key, per month. */
  kmsKeyMonth: 1,
  /** API Gateway REST API request, first 333 million a month. */
  apiGatewayRestRequest: 3.5 / 1e6,
  /** AWS WAF request inspected by a web ACL (the same in every region). */
  wafRequest: 0.6 / 1e6,
  /** AWS WAF web ACL per month, and each of its rules per month. */
  wafWebAclMonth: 5,
  wafRuleMonth: 1,
  /** CloudWatch Logs ingestion (Standard class, and the first tier of Lambda's vended logs), per GB. */
  logsIngestGb: 0.5,
  /** CloudWatch Logs storage, per GB-month (billed on the compressed size). */
  logsStorageGbMonth: 0.03,
  /** X-Ray trace recorded. */
  xrayTraceRecorded: 5 / 1e6,
  /** X-Ray trace retrieved or scanned. */
  xrayTraceRetrieved: 0.5 / 1e6,
  /** Amazon Data Firehose Direct PUT ingestion, per GB, each record rounded up to a multiple of 5 KB. */
  firehoseIngestGb: 0.029,
  /** Glue Data Catalog requests beyond the first million a month (Firehose's commits). */
  glueRequest: 1 / 1e6,
  /** Glue table optimizer (compaction) per DPU-hour. */
  glueDpuHour: 0.44,
  /** CloudWatch custom metric per month (first 10,000), and standard alarm per month. */
  cloudWatchMetricMonth: 0.3,
  cloudWatchAlarmMonth: 0.1,
} as const;

/** The names of the prices in {@link PRICES}. */
export type PriceName = Exclude<keyof typeof PRICES, 'region' | 'date'>;

const LAMBDA = 'https://aws.amazon.com/lambda/pricing/';
const S3 = 'https://aws.amazon.com/s3/pricing/';
const DYNAMODB = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const EVENTBRIDGE = 'https://aws.amazon.com/eventbridge/pricing/';
const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';

/** Where each price comes from (the public price page of its service, us-east-1 selected). */
export const PRICE_SOURCES: Record<PriceName, string> = {
  dynamoWriteUnit: DYNAMODB,
  dynamoReadUnit: DYNAMODB,
  dynamoStorageGbMonth: DYNAMODB,
  s3Put: S3,
  s3Get: S3,
  s3StandardGbMonth: S3,
  eventBridgeEvent: EVENTBRIDGE,
  eventBridgeArchiveGb: EVENTBRIDGE,
  eventBridgeArchiveStorageGbMonth: EVENTBRIDGE,
  sqsRequest: 'https://aws.amazon.com/sqs/pricing/',
  lambdaGbSecond: LAMBDA,
  lambdaRequest: LAMBDA,
  secretsCall: 'https://aws.amazon.com/secrets-manager/pricing/',
  secretMonth: 'https://aws.amazon.com/secrets-manager/pricing/',
  kmsRequest: 'https://aws.amazon.com/kms/pricing/',
  kmsKeyMonth: 'https://aws.amazon.com/kms/pricing/',
  apiGatewayRestRequest: 'https://aws.amazon.com/api-gateway/pricing/',
  wafRequest: 'https://aws.amazon.com/waf/pricing/',
  wafWebAclMonth: 'https://aws.amazon.com/waf/pricing/',
  wafRuleMonth: 'https://aws.amazon.com/waf/pricing/',
  logsIngestGb: CLOUDWATCH,
  logsStorageGbMonth: CLOUDWATCH,
  xrayTraceRecorded: 'https://aws.amazon.com/xray/pricing/',
  xrayTraceRetrieved: 'https://aws.amazon.com/xray/pricing/',
  firehoseIngestGb: 'https://aws.amazon.com/firehose/pricing/',
  glueRequest: 'https://aws.amazon.com/glue/pricing/',
  glueDpuHour: 'https://aws.amazon.com/glue/pricing/',
  cloudWatchMetricMonth: CLOUDWATCH,
  cloudWatchAlarmMonth: CLOUDWATCH,
};

/** Requests of one result, per service and operation (as the counting proxies saw them). */
export type RequestCounts = Record<string, Record<string, number>>;

/** What the cost of one result is computed from. */
export interface CostInput {
  requests: RequestCounts;
  /** Size of the result's item as DynamoDB counts it (bytes). */
  itemBytes: number;
  /** Indexes whose keys the item has (each item write is also a write to each of them). */
  indexesWritten: number;
  /** Handler wall time and CPU time on this machine (ms) and the function's memory (MB), for Lambda duration. */
  handlerMs: number;
  handlerCpuMs: number;
  memoryMb: number;
}

/** Cost per 1,000 results, per service, with the arithmetic spelled out. */
export interface Cost {
  perThousand: Record<'dynamodb' | 'eventBridge' | 'sqs' | 'lambda' | 'secretsManager' | 's3', number>;
  /** DynamoDB + EventBridge + SQS + Lambda (the issue's ≤ $0.01 target). */
  coreTotal: number;
  total: number;
  arithmetic: string[];
}

/** Memory at which a Lambda function has one full vCPU (Lambda developer guide, "Memory and computing power"). */
export const LAMBDA_MB_PER_VCPU = 1769;

/** Write units of a claim or mark (an UpdateItem of the publication record, < 1 KB). */
const PUBLICATION_RECORD_UNITS = 1;

/** Requests of `ops` named in `names` (all of them without `names`). */
export const sum = (ops: Record<string, number> | undefined, names?: readonly string[]): number =>
  Object.entries(ops ?? {}).reduce(
    (n, [op, count]) => n + (names === undefined || names.includes(op) ? count : 0),
    0,
  );

/**
 * Read units of a BatchGetItem: it is billed per key as a GetItem would be (a missing item too), and the
 * pipeline's only one (`ResultStore.readState`) asks for a result's item, publication and erasure
 * records, each well under 4 KB: 3 units.
 */
const BATCH_GET_UNITS = 3;

/** Read units of a result's DynamoDB reads: GetItem and Query 1 each, BatchGetItem {@link BATCH_GET_UNITS}. */
export const readUnitsOf = (ddb: Record<string, number> | undefined): number =>
  sum(ddb, ['GetItem', 'Query']) + BATCH_GET_UNITS * sum(ddb, ['BatchGetItem']);

const usd = (value: number) => `$${value.toPrecision(3)}`;

/**
 * Turns one result's requests into list-price cost per 1,000 results. Models what a count alone cannot
 * say: a PutItem writes ceil(item KB) units to the table and one unit to each index holding the item
 * (they project keys, `result` and `product` only: < 1 KB). The pipeline's only UpdateItems are the claim
 * and the mark of the result's publication record (shared/store/publication.ts: under 200 bytes, no
 * index keys): 1 unit each. A GetItem is 1 read unit (the idempotency check misses, or reads a record or
 * an item of at most a few KB); the BatchGetItem before the service is asked, 3. SQS is 3 requests per
 * result: the poll's SendMessage and the event source's ReceiveMessage and DeleteMessage with batch size 1
 * (larger batches share the last two).
 */
export function costPerThousand(input: CostInput): Cost {
  const { requests } = input;
  const ddb = requests['DYNAMODB'];
  const itemUnits = Math.max(1, Math.ceil(input.itemBytes / 1024));
  const puts = sum(ddb, ['PutItem']);
  const updates = sum(ddb, ['UpdateItem']);
  const reads = readUnitsOf(ddb);
  const writeUnits = puts * (itemUnits + input.indexesWritten) + updates * PUBLICATION_RECORD_UNITS;
  const dynamodb = 1000 * (writeUnits * PRICES.dynamoWriteUnit + reads * PRICES.dynamoReadUnit);
  const s3Puts = sum(requests['S3'], [
    'PutObject',
    'UploadPart',
    'CreateMultipartUpload',
    'CompleteMultipartUpload',
    'PostObject',
  ]);
  // DELETE (and DeleteObjects) requests are free; everything else is a GET-class request.
  const s3Free = sum(requests['S3'], ['DeleteObject', 'DeleteObjects', 'AbortMultipartUpload']);
  const s3Others = sum(requests['S3']) - s3Puts - s3Free;
  const s3 = 1000 * (s3Puts * PRICES.s3Put + s3Others * PRICES.s3Get);
  const events = sum(requests['EVENTBRIDGE'], ['PutEvents']);
  const eventBridge = 1000 * events * PRICES.eventBridgeEvent;
  const sqsRequests = 3;
  const sqs = 1000 * sqsRequests * PRICES.sqsRequest;
  // Lambda gives a function memory/1,769 MB of a vCPU: the CPU part of the handler's time stretches by
  // that share, the waiting (service, S3, DynamoDB) does not.
  const vcpu = Math.min(1, input.memoryMb / LAMBDA_MB_PER_VCPU);
  const waitSeconds = Math.max(0, input.handlerMs - input.handlerCpuMs) / 1000;
  const lambdaSeconds = waitSeconds + input.handlerCpuMs / 1000 / vcpu;
  const gbSeconds = (input.memoryMb / 1024) * lambdaSeconds;
  const lambda = 1000 * (gbSeconds * PRICES.lambdaGbSecond + PRICES.lambdaRequest);
  const secretCalls = sum(requests['SECRETS_MANAGER']);
  const secretsManager = 1000 * secretCalls * PRICES.secretsCall;
  const coreTotal = dynamodb + eventBridge + sqs + lambda;
  return {
    perThousand: { dynamodb, eventBridge, sqs, lambda, secretsManager, s3 },
    coreTotal,
    total: coreTotal + s3 + secretsManager,
    arithmetic: [
      `DynamoDB: ${puts} PutItem × (${itemUnits} table + ${input.indexesWritten} index WRU) + ${updates} UpdateItem × ${PUBLICATION_RECORD_UNITS} WRU = ${writeUnits} WRU × $0.625/M, + ${reads} RRU × $0.125/M → ${usd(dynamodb)}`,
      `EventBridge: ${events} event(s) × $1.00/M → ${usd(eventBridge)}`,
      `SQS: ${sqsRequests} requests × $0.40/M → ${usd(sqs)}`,
      `Lambda: ${input.memoryMb} MB (${vcpu.toFixed(3)} vCPU) × (${waitSeconds.toFixed(2)} s waiting + ${(input.handlerCpuMs / 1000).toFixed(2)} s CPU / ${vcpu.toFixed(3)}) = ${lambdaSeconds.toFixed(2)} s = ${gbSeconds.toFixed(4)} GB-s × $0.0000133334 + 1 request × $0.20/M → ${usd(lambda)}`,
      `S3: ${s3Puts} PUT-class × $0.005/1k + ${s3Others} other × $0.0004/1k (${s3Free} DELETE, free) → ${usd(s3)}`,
      `Secrets Manager: ${secretCalls} call(s) × $0.05/10k → ${usd(secretsManager)}`,
    ],
  };
}
