import type { RemovalPolicy } from 'aws-cdk-lib';
import { Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type CustomerReferenceMode, ENV } from '../../shared/config';
import { budgetProblems, FETCH_BUDGET } from '../../shared/pipeline/fetch-budget';
import { RESULTS_PREFIX, STAGING_PREFIX } from '../../shared/store/keys';
import { IdvPipelineValidationError } from '../idv-pipeline-settings';
import { wildcardResourceFinding } from '../nag-findings';
import { keyUseThrough } from './encryption-key';
import { type FunctionNetwork, type FunctionSettings, PipelineFunction } from './pipeline-function';
import type { Secrets } from './secrets';

/**
 * Timeout of the fetch-result function, from its time budget (docs/pipeline.md, "Time budget"); the
 * queue's visibility timeout is derived from it.
 */
export const FETCH_RESULT_TIMEOUT = Duration.seconds(FETCH_BUDGET.functionTimeoutSeconds);

/** Properties of {@link ResultFetcher}. */
export interface ResultFetcherProps {
  /** Tracing, log retention and level, and metrics dimensions of the fetch-result function. */
  readonly functionSettings: FunctionSettings;
  /** Base URL of the verification service (https). */
  readonly serviceBaseUrl: string;
  /** OAuth scopes requested for the shared access token. */
  readonly scopes: readonly string[];
  /** Days a stored result is kept (the TTL the function gives each item). */
  readonly retentionDays: number;
  /** Whether the result events carry `customerReference`. */
  readonly eventCustomerReference: CustomerReferenceMode;
  /** Maximum concurrent invocations of the function (the SQS event source's `maxConcurrency`). */
  readonly fetchConcurrency: number;
  /** Reserved concurrency of the function; `false` reserves none. */
  readonly fetchReservedConcurrency: number | false;
  /** Memory of the function in MB. */
  readonly fetchResultMemoryMb: number;
  /** Requests per second each container sends to the service. */
  readonly servicePacePerContainer: number;
  /** The results queue the function consumes. */
  readonly queue: sqs.IQueue;
  /** Table the result items go to. */
  readonly table: dynamodb.ITable;
  /** Bucket the result objects go to. */
  readonly bucket: s3.IBucket;
  /** Bus the result events are published on. */
  readonly bus: events.IEventBus;
  /** Credentials and token cache. */
  readonly secrets: Secrets;
  /** What happens to the log group when the stack is deleted. */
  readonly logRemovalPolicy: RemovalPolicy;
  /** Key that encrypts the function's log group. */
  readonly encryptionKey: kms.IKey;
  /** The VPC subnets the function runs in. @default no VPC */
  readonly network?: FunctionNetwork;
}

/**
 * The fetch-result function and its queue subscription: fetches each result once, writes the objects
 * to S3 and the item to DynamoDB, and announces it on the bus. Batch item failures are reported, so
 * one bad message does not redeliver its batch; `maxConcurrency` keeps a backlog from flooding the
 * service.
 */
export class ResultFetcher extends Construct {
  /** The fetch-result function. */
  readonly fetchResultFunction: PipelineFunction;

  constructor(scope: Construct, id: string, props: ResultFetcherProps) {
    super(scope, id);
    const problems = budgetProblems();
    if (problems.length > 0) {
      // The budget is the package's constants (shared/pipeline/fetch-budget.ts), not a prop: a build error.
      throw new IdvPipelineValidationError(
        'fetchResultTimeBudget',
        `is inconsistent: ${problems.join('; ')}`,
        { where: this.node.path },
      );
    }

    this.fetchResultFunction = new PipelineFunction(this, 'FetchResultFunction', {
      entry: 'functions/fetch-result/handler.ts',
      description: 'Fetches a verification result, stores it in S3 and DynamoDB and announces it.',
      functionSettings: props.functionSettings,
      timeout: FETCH_RESULT_TIMEOUT,
      // Per environment (cdk.json `fetchResultMemoryMb`, default 256): the function streams each result,
      // so memory does not grow with it (docs/benchmarks.md).
      memorySize: props.fetchResultMemoryMb,
      // At least the event source's maximum concurrency (docs/deploy.md, "Service rate and concurrency").
      ...(props.fetchReservedConcurrency !== false && {
        reservedConcurrentExecutions: props.fetchReservedConcurrency,
      }),
      logRemovalPolicy: props.logRemovalPolicy,
      logEncryptionKey: props.encryptionKey,
      network: props.network,
    });
    const fn = this.fetchResultFunction;
    props.secrets.grantServiceAccess(fn.function, props);
    fn.addEnvironment(ENV.retentionDays, String(props.retentionDays));
    fn.addEnvironment(ENV.eventCustomerReference, props.eventCustomerReference);
    // Each container's share of the service's rate: together they stay within it.
    fn.addEnvironment(ENV.serviceRequestsPerSecond, String(props.servicePacePerContainer));
    fn.addEnvironment(ENV.resultsTableName, props.table.tableName);
    // Exactly the item operations of the result store (no Scan, Delete or index reads; BatchGetItem reads
    // a result's item, publication and erasure records at once); the key grant comes from the table so
    // it follows the table's encryption.
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
      }),
    );
    // DynamoDB uses the table key on the caller's behalf; only through DynamoDB, and without the
    // ReEncrypt/CreateGrant that only a key change or the table's creation (CloudFormation) needs.
    if (props.table.encryptionKey) {
      fn.function.addToRolePolicy(
        keyUseThrough(props.table.encryptionKey, 'dynamodb', [
          'kms:Decrypt',
          'kms:Encrypt',
          'kms:GenerateDataKey',
          'kms:DescribeKey',
        ]),
      );
    }
    fn.addEnvironment(ENV.dataBucketName, props.bucket.bucketName);
    // Keys are deterministic, so a redelivery overwrites; the function never reads, lists or tags.
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [props.bucket.arnForObjects(`${RESULTS_PREFIX}*`)],
      }),
    );
    // Large blobs go to a multipart upload under staging/ while decoding, then are copied to their final
    // key under results/ (docs/pipeline.md, "Streaming fetch-and-store"): reading, deleting and aborting
    // are granted on the staging prefix only, never on the stored results.
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: [props.bucket.arnForObjects(`${STAGING_PREFIX}*`)],
      }),
    );
    if (props.bucket.encryptionKey) {
      fn.function.addToRolePolicy(
        keyUseThrough(props.bucket.encryptionKey, 's3', ['kms:GenerateDataKey', 'kms:Decrypt']),
      );
    }
    Validations.of(fn.function.role!).acknowledge({
      id: `AwsSolutions-IAM5[${wildcardResourceFinding(fn, props.bucket.arnForObjects(`${RESULTS_PREFIX}*`))}]`,
      reason:
        'Object keys are per result (results/{resultId}/...), unknown in advance; the grant is PutObject ' +
        'only, limited to the results/ prefix of the data bucket.',
    });
    Validations.of(fn.function.role!).acknowledge({
      id: `AwsSolutions-IAM5[${wildcardResourceFinding(fn, props.bucket.arnForObjects(`${STAGING_PREFIX}*`))}]`,
      reason:
        'Staging keys are per result and blob (staging/{resultId}/...), unknown in advance; the grant covers ' +
        'only the staging/ prefix, which a lifecycle rule empties after a day.',
    });
    fn.addEnvironment(ENV.eventBusName, props.bus.eventBusName);
    props.bus.grantPutEventsTo(fn.function);

    fn.function.addEventSource(
      new SqsEventSource(props.queue, {
        // Within the time budget: records not started in time go back as batch item failures.
        batchSize: FETCH_BUDGET.batchSize,
        ...(FETCH_BUDGET.maxBatchingWindowSeconds > 0 && {
          maxBatchingWindow: Duration.seconds(FETCH_BUDGET.maxBatchingWindowSeconds),
        }),
        reportBatchItemFailures: true,
        // From the service's rate (cdk.json `serviceRateLimit`): a backlog drains at the service's pace.
        maxConcurrency: props.fetchConcurrency,
      }),
    );
  }
}
