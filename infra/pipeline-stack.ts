import * as path from 'node:path';
import { CfnOutput, RemovalPolicy, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { secretNamePrefix } from '../shared/secret-names';
import type { EnvironmentConfig } from './config';
import { type Analytics, AnalyticsStack } from './constructs/analytics';
import { DataBucket } from './constructs/data-bucket';
import { EncryptionKey } from './constructs/encryption-key';
import { EventBus } from './constructs/event-bus';
import { Monitoring } from './constructs/monitoring';
import { PROJECT_ROOT } from './constructs/pipeline-function';
import { Poller } from './constructs/poller';
import { FETCH_RESULT_TIMEOUT, ResultFetcher } from './constructs/result-fetcher';
import { ResultsQueue } from './constructs/results-queue';
import { ResultsTable } from './constructs/results-table';
import { Secrets } from './constructs/secrets';
import { WebhookApi } from './constructs/webhook-api';

/** Properties of {@link PipelineStack}. */
export interface PipelineStackProps extends StackProps {
  /** The validated settings of the environment this stack serves. */
  readonly config: EnvironmentConfig;
}

/** Stack name of an environment: `IdvPipeline-staging`, `IdvPipeline-production`. */
export function stackName(environment: string): string {
  return `IdvPipeline-${environment}`;
}

/**
 * The whole results pipeline of one environment: webhook API and poll schedule feed the results
 * queue, fetch-result stores into the table and the data bucket and announces on the event bus;
 * everything is encrypted with one rotating key and watched by the alarms and the dashboard.
 */
export class PipelineStack extends Stack {
  /** The webhook API and its function. */
  readonly webhookApi: WebhookApi;
  /** The poll schedule and its function. */
  readonly poller: Poller;
  /** The fetch-result function and its queue subscription. */
  readonly resultFetcher: ResultFetcher;
  /** The results queue and its DLQ. */
  readonly resultsQueue: ResultsQueue;
  /** The three secrets. */
  readonly secrets: Secrets;
  /** Alarm topic, alarms and dashboard. */
  readonly monitoring: Monitoring;
  /** Projection, Glue table and view, Athena workgroup, analyst policy (docs/analytics.md). */
  readonly analytics: Analytics;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { config } = props;
    const name = `idv-pipeline-${config.name}`;
    const dataRemoval = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    Tags.of(this).add('project', 'idv-pipeline');
    Tags.of(this).add('environment', config.name);

    const { key } = new EncryptionKey(this, 'EncryptionKey', { aliasName: name, removalPolicy: dataRemoval });
    const secrets = new Secrets(this, 'Secrets', {
      namePrefix: secretNamePrefix(config.name),
      encryptionKey: key,
      removalPolicy: dataRemoval,
    });
    const results = new ResultsQueue(this, 'ResultsQueue', {
      encryptionKey: key,
      consumerTimeout: FETCH_RESULT_TIMEOUT,
    });
    const { table } = new ResultsTable(this, 'ResultsTable', {
      encryptionKey: key,
      removalPolicy: dataRemoval,
    });
    const data = new DataBucket(this, 'DataBucket', {
      encryptionKey: key,
      retentionDays: config.retentionDays,
      accessLogRetentionDays: Math.max(config.logRetentionDays, 90),
      removalPolicy: dataRemoval,
    });
    const { bus, archive } = new EventBus(this, 'EventBus', {
      busName: name,
      encryptionKey: key,
      archiveRetentionDays: config.retentionDays,
      schemaDirectory: path.join(PROJECT_ROOT, 'shared', 'events', 'schemas'),
    });

    const webhook = new WebhookApi(this, 'WebhookApi', {
      config,
      queue: results,
      secrets,
      encryptionKey: key,
      logRemovalPolicy: dataRemoval,
    });
    const poller = new Poller(this, 'Poller', {
      config,
      encryptionKey: key,
      queue: results,
      secrets,
      logRemovalPolicy: dataRemoval,
    });
    const fetcher = new ResultFetcher(this, 'ResultFetcher', {
      config,
      encryptionKey: key,
      queue: results.queue,
      table,
      bucket: data.bucket,
      bus,
      secrets,
      logRemovalPolicy: dataRemoval,
    });

    const monitoring = new Monitoring(this, 'Monitoring', {
      config,
      encryptionKey: key,
      queue: results.queue,
      deadLetterQueue: results.deadLetterQueue,
      functions: {
        webhook: webhook.webhookFunction,
        poll: poller.pollFunction,
        fetchResult: fetcher.fetchResultFunction,
      },
    });

    const { analytics } = new AnalyticsStack(this, 'Analytics', {
      config,
      encryptionKey: key,
      bus,
      busName: name,
      accessLogs: data,
      alarmTopic: monitoring.topic,
      removalPolicy: dataRemoval,
    });
    this.analytics = analytics;

    // cdk-nag Serverless: fetch-result consumes SQS, whose redrive policy is its failure destination.
    Validations.of(fetcher.fetchResultFunction.function).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked by the SQS event source only (no asynchronous invocations): a failed message returns ' +
          'to the results queue and after maxReceiveCount moves to its dead-letter queue.',
      },
      {
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason:
          "SQS event source: failed records go back to the queue and, after maxReceiveCount, to the queue's " +
          'dead-letter queue (alarmed, redriven by `idv dlq redrive`); an on-failure destination would ' +
          'keep only the invocation record, not the message.',
      },
    );

    this.secrets = secrets;
    this.resultsQueue = results;
    this.webhookApi = webhook;
    this.poller = poller;
    this.resultFetcher = fetcher;
    this.monitoring = monitoring;

    // What an operator needs after `cdk deploy`; secret names only, never a value.
    const outputs: Record<string, [string, string]> = {
      WebhookBaseUrl: [
        webhook.webhookBaseUrl,
        'Append <webhook secret>/result and <webhook secret>/upload and register them at the service',
      ],
      EventBusName: [bus.eventBusName, 'Bus the pipeline publishes its events on'],
      EventBusArn: [bus.eventBusArn, 'ARN of the event bus (for consumer rules)'],
      EventArchiveName: [archive.archiveName, 'Archive of every event (idv events replay --archive NAME)'],
      ResultsTableName: [table.tableName, 'DynamoDB table of stored results'],
      DataBucketName: [data.bucket.bucketName, 'S3 bucket of result.json, images and files'],
      ResultsQueueUrl: [results.queue.queueUrl, 'SQS queue of resultIds to fetch'],
      DeadLetterQueueUrl: [results.deadLetterQueue.queueUrl, 'Dead-letter queue (redrive after fixing)'],
      CredentialsSecretName: [
        secrets.credentials.secretName,
        'Put {"clientId","clientSecret"} into this secret',
      ],
      WebhookSecretName: [secrets.webhook.secretName, 'Secret holding the webhook path segment'],
      TokenCacheSecretName: [
        secrets.tokenCache.secretName,
        'Shared access-token cache (managed by the functions)',
      ],
      AlarmTopicArn: [monitoring.topic.topicArn, 'SNS topic of every alarm (subscribe your on-call here)'],
      DashboardName: [monitoring.dashboard.dashboardName, 'CloudWatch dashboard of the pipeline'],
      AnalyticsWorkgroup: [
        analytics.workgroupName,
        'Athena workgroup: idv analytics query --workgroup <this>',
      ],
      AnalyticsDatabase: [analytics.databaseName, 'Glue database of the results view'],
      AnalyticsBucketName: [analytics.bucket.bucketName, 'S3 bucket of the analytics projection'],
      AnalystPolicyArn: [analytics.analystPolicy.managedPolicyArn, 'Attach to the roles of analysts'],
    };
    for (const [id, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, id, { value, description });
    }
  }
}
