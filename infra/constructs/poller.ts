import type { RemovalPolicy } from 'aws-cdk-lib';
import { Duration, RemovalPolicy as Removal, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config';
import { MARKERS_TABLE } from '../../shared/store/table-schema';
import { keyUseThrough } from './encryption-key';
import { type FunctionNetwork, type FunctionSettings, PipelineFunction } from './pipeline-function';
import type { ResultsQueue } from './results-queue';
import type { Secrets } from './secrets';

/** Properties of {@link Poller}. */
export interface PollerProps {
  /** Tracing, log retention and level, and metrics dimensions of the poll function. */
  readonly functionSettings: FunctionSettings;
  /** Base URL of the verification service (https). */
  readonly serviceBaseUrl: string;
  /** OAuth scopes requested for the shared access token. */
  readonly scopes: readonly string[];
  /** EventBridge schedule expression of the poll runs, e.g. `rate(1 minute)`. */
  readonly pollSchedule: string;
  /** Queue the poll function sends each pending resultId to. */
  readonly queue: ResultsQueue;
  /** Credentials and token cache. */
  readonly secrets: Secrets;
  /** What happens to the log group when the stack is deleted. */
  readonly logRemovalPolicy: RemovalPolicy;
  /** Key that encrypts the function's log group and the enqueue-markers table. */
  readonly encryptionKey: kms.IKey;
  /** The VPC subnets the function runs in. @default no VPC */
  readonly network?: FunctionNetwork;
}

/**
 * The polling safety net: an EventBridge schedule (every minute by default) runs the poll function,
 * which lists pending poll records at the service and enqueues their resultIds, each at most once per
 * queue visibility window (enqueue markers in a small table of their own: resultIds and times, no
 * personal data). It can reach the service, the queue and `PutItem` on the markers table, nothing else:
 * no S3, no results table.
 */
export class Poller extends Construct {
  /** The poll function. */
  readonly pollFunction: PipelineFunction;
  /** The schedule rule. */
  readonly rule: events.Rule;
  /** Enqueue markers (`resultId`, `enqueuedAt`, TTL `expiresAt`). */
  readonly markersTable: dynamodb.Table;

  constructor(scope: Construct, id: string, props: PollerProps) {
    super(scope, id);

    this.pollFunction = new PipelineFunction(this, 'PollFunction', {
      entry: 'functions/poll/handler.ts',
      description: 'Polls the verification service for finished transactions and enqueues their resultIds.',
      functionSettings: props.functionSettings,
      // Shorter than the schedule period, so two runs never overlap.
      timeout: Duration.seconds(50),
      logRemovalPolicy: props.logRemovalPolicy,
      logEncryptionKey: props.encryptionKey,
      network: props.network,
    });
    const fn = this.pollFunction;
    props.secrets.grantServiceAccess(fn.function, props);
    props.queue.grantSend(fn.function);

    this.markersTable = new dynamodb.Table(this, 'EnqueueMarkers', {
      partitionKey: { name: MARKERS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: MARKERS_TABLE.ttlAttribute,
      // resultIds and times only, but on the stack key like every other store of the pipeline: one key
      // whose policy and CloudTrail record say who read what.
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: props.encryptionKey,
      // Disposable: losing the markers costs at most one extra message per pending result.
      removalPolicy: Removal.DESTROY,
    });
    // A conditional put claims a marker and (with enqueuedAt 0) gives it back: no read, no delete.
    this.markersTable.grant(fn.function, 'dynamodb:PutItem');
    // DynamoDB uses the table key on the caller's behalf: only through DynamoDB (as for fetch-result).
    fn.function.addToRolePolicy(
      keyUseThrough(props.encryptionKey, 'dynamodb', [
        'kms:Decrypt',
        'kms:Encrypt',
        'kms:GenerateDataKey',
        'kms:DescribeKey',
      ]),
    );
    fn.addEnvironment(ENV.pollMarkersTableName, this.markersTable.tableName);
    fn.addEnvironment(ENV.pollMarkerWindowSeconds, String(props.queue.visibilityTimeout.toSeconds()));
    Validations.of(this.markersTable).acknowledge({
      id: 'AwsSolutions-DDB3',
      reason:
        'No point-in-time recovery: the markers live one visibility window and only prevent duplicate ' +
        'messages; restoring them would restore nothing of value.',
    });

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Runs the poll function: the safety net for missed result webhooks.',
      schedule: events.Schedule.expression(props.pollSchedule),
      // A missed run is repaired by the next one; retrying a stale run would only overlap it.
      targets: [new targets.LambdaFunction(fn.function, { retryAttempts: 0 })],
    });
    const nextRunRepairs =
      'A failed poll run is repaired by the next scheduled run a minute later (the records stay at the ' +
      'service until fetched); a dead-letter queue of stale schedule events would hold nothing to redo. ' +
      'The PollFailures and PollNotRunning alarms report failing runs.';
    Validations.of(this.rule).acknowledge({ id: 'Serverless-EventBusDLQ', reason: nextRunRepairs });
    Validations.of(fn.function).acknowledge({ id: 'Serverless-LambdaDLQ', reason: nextRunRepairs });
  }
}
