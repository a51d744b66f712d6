import * as path from 'node:path';
import {
  Annotations,
  CfnOutput,
  Duration,
  NestedStack,
  RemovalPolicy,
  Token,
  Validations,
} from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type OutputKey, PIPELINE_OUTPUTS } from '../shared/deployment-outputs';
import { resolveCopyBounds } from '../shared/erasure/bounds';
import { DETAIL_TYPES, type DetailType, EVENT_SOURCE } from '../shared/events/names';
import { RESULTS_PREFIX } from '../shared/store/keys';
import { PROJECT_ROOT } from './bundling/lambda-bundling';
import type { PipelineSettings } from './config';
import { AnalyticsIceberg, type AnalyticsIcebergProps } from './constructs/analytics-iceberg';
import { DataBucket } from './constructs/data-bucket';
import { admitPipelineServices, EncryptionKey, keyUseThrough } from './constructs/encryption-key';
import { Erasure } from './constructs/erasure';
import { EventBus } from './constructs/event-bus';
import { Monitoring } from './constructs/monitoring';
import type { FunctionNetwork, FunctionSettings } from './constructs/pipeline-function';
import { Poller } from './constructs/poller';
import { FETCH_RESULT_TIMEOUT, ResultFetcher } from './constructs/result-fetcher';
import { ResultsQueue } from './constructs/results-queue';
import { ResultsTable } from './constructs/results-table';
import { Secrets } from './constructs/secrets';
import { defaultEndpoints } from './constructs/vpc-endpoints';
import { WebhookApi } from './constructs/webhook-api';
import type { IdvPipelineProps } from './idv-pipeline-props';
import {
  IdvPipelineValidationError,
  placeholderProps,
  type SettingsInput,
  settingsOf,
} from './idv-pipeline-settings';
import { grantAcknowledged } from './nag-findings';
import { dataRemovalPolicyOf, snapshotKeeps } from './removal-policy';
import { ResourceNames } from './resource-names';

/**
 * Runs `build`; an {@link IdvPipelineValidationError} it throws names the construct path too (as
 * aws-cdk-lib's `ValidationError` does with its scope).
 */
function placed<T>(scope: Construct, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof IdvPipelineValidationError && error.where === undefined) {
      throw error.at(scope.node.path);
    }
    throw error;
  }
}

/**
 * The props as the plain input of the one rule set (infra/idv-pipeline-settings.ts), which cdk.json's
 * decoder (infra/config.ts) gives too: durations in days and minutes, the URL marked when it is a token.
 */
function settingsInputOf(props: IdvPipelineProps): SettingsInput {
  return {
    environmentName: props.environmentName,
    serviceBaseUrl: props.serviceBaseUrl,
    // A token (the function URL of a simulator in the same app, test/integ/) is known only at deploy time.
    serviceBaseUrlIsToken: Token.isUnresolved(props.serviceBaseUrl),
    serviceEnvironment: props.serviceEnvironment,
    retentionDays: props.retention?.toDays({ integral: false }),
    logRetentionDays: props.logRetention,
    pollSchedule: props.pollSchedule,
    scopes: props.scopes,
    logLevel: props.logLevel,
    alarmEmail: props.alarmEmail,
    alarmTopicGiven: props.alarmTopic !== undefined,
    serviceRateLimit: props.serviceRateLimit,
    fetchConcurrency: props.fetchConcurrency,
    fetchReservedConcurrency: props.fetchReservedConcurrency,
    fetchResultMemorySize: props.fetchResultMemorySize,
    webhookProtection: props.webhookProtection,
    webhookRateLimit: props.webhookRateLimit,
    webhookBurstLimit: props.webhookBurstLimit,
    tracing: props.tracing,
    eventCustomerReference: props.eventCustomerReference,
    pendingAlarmMinutes: props.pendingAlarmThreshold?.toMinutes({ integral: false }),
    storageClasses: props.storageClasses,
  };
}

/** CloudFormation's limit of an EventBridge archive's name. */
const ARCHIVE_NAME_MAX = 48;

/**
 * The identity verification results pipeline as one construct: the webhook API and the poll schedule
 * feed the results queue; fetch-result stores each result in the table and the data bucket and announces
 * it on the bus; alarms, a dashboard and (optionally) the analytics projection watch and describe it.
 *
 * Resources a platform team owns come in as `encryptionKey`, `dataBucket`, `eventBus`, `alarmTopic` and
 * `vpc`: given, they are used and granted, never created (docs/construct.md). Without `namePrefix` no
 * physical name is fixed, so several pipelines live in one stack, account and region.
 */
export class IdvPipeline extends Construct {
  /** The validated settings, defaults applied. */
  readonly settings: PipelineSettings;
  /** The key of every store, queue, topic, log group and secret (given or created). */
  readonly encryptionKey: kms.IKey;
  /** The bus result events are published on (given or created). */
  readonly eventBus: events.IEventBus;
  /** The archive of the pipeline's events (only on a bus the pipeline created). */
  readonly eventArchive?: events.Archive;
  /** The bucket of result objects (given or created). */
  readonly dataBucket: s3.IBucket;
  /** The table of stored results. */
  readonly resultsTable: dynamodb.Table;
  /** Queue of resultIds to fetch. */
  readonly queue: sqs.Queue;
  /** Dead-letter queue of the results queue (alarmed; `idv dlq redrive`). */
  readonly deadLetterQueue: sqs.Queue;
  /** Topic every alarm notifies (given or created). */
  readonly alarmTopic: sns.ITopic;
  /**
   * Base URL of the webhooks, ending in `/webhooks/`: register `<this><webhook secret>/result` and
   * `…/upload` at the service; the secret is in `secrets.webhook`, never in the template.
   */
  readonly webhookUrlWithoutSecret: string;
  /** The three secrets (client credentials, token cache, webhook path). */
  readonly secrets: Secrets;
  /** The webhook API and its function. */
  readonly webhookApi: WebhookApi;
  /** The poll schedule and its function. */
  readonly poller: Poller;
  /** fetch-result and its queue subscription. */
  readonly resultFetcher: ResultFetcher;
  /** The results queue construct (queue, DLQ, producer grant). */
  readonly resultsQueue: ResultsQueue;
  /** Alarms and dashboard. */
  readonly monitoring: Monitoring;
  /** The analytics resources, unless `analytics: false`. */
  readonly analytics?: AnalyticsIceberg;
  /** The erasure policy (`grantErase`) and the daily retention check with its alarm. */
  readonly erasure: Erasure;
  /** The security group of the functions, with a `vpc`. */
  readonly functionSecurityGroup?: ec2.ISecurityGroup;

  constructor(scope: Construct, id: string, props: IdvPipelineProps) {
    super(scope, id);
    const names = new ResourceNames(this, props.namePrefix);
    const config = placed(this, () =>
      settingsOf(
        settingsInputOf(props),
        props.metricsServiceName ?? names.optional() ?? names.required('pipeline'),
      ),
    );
    this.settings = config;
    placed(this, () => this.#refusePlaceholders(config, props));
    const dataRemoval = placed(this, () => dataRemovalPolicyOf(props.removalPolicy));

    if (props.encryptionKey !== undefined) {
      admitPipelineServices(props.encryptionKey);
      this.encryptionKey = props.encryptionKey;
    } else {
      this.encryptionKey = new EncryptionKey(this, 'EncryptionKey', {
        aliasName: names.optional(),
        removalPolicy: dataRemoval,
      }).key;
    }
    const key = this.encryptionKey;
    const functionSettings: FunctionSettings = {
      tracing: config.tracing,
      logRetentionDays: config.logRetentionDays,
      logLevel: config.logLevel,
      metricsServiceName: config.metricsServiceName,
      serviceEnvironment: config.serviceEnvironment,
    };
    const network = props.vpc === undefined ? undefined : this.#network(props, props.vpc);
    this.functionSecurityGroup = network?.securityGroups[0];

    const secretNamePrefix = props.secretNamePrefix ?? props.namePrefix;
    this.secrets = new Secrets(this, 'Secrets', {
      ...(secretNamePrefix !== undefined && { namePrefix: secretNamePrefix }),
      encryptionKey: key,
      removalPolicy: dataRemoval,
    });
    this.resultsQueue = new ResultsQueue(this, 'ResultsQueue', {
      encryptionKey: key,
      consumerTimeout: FETCH_RESULT_TIMEOUT,
    });
    this.queue = this.resultsQueue.queue;
    this.deadLetterQueue = this.resultsQueue.deadLetterQueue;
    // How long each copy an erasure cannot reach at once may live (docs/erasure.md): one set of bounds for
    // the stores and the receipt.
    const copyBounds = resolveCopyBounds(props.copyBounds, config.retentionDays);
    this.resultsTable = new ResultsTable(this, 'ResultsTable', {
      encryptionKey: key,
      removalPolicy: dataRemoval,
      recoveryPeriodDays: copyBounds.tableRecoveryDays,
    }).table;
    if (props.removalPolicy === RemovalPolicy.SNAPSHOT) {
      Annotations.of(this).addInfoV2(
        'idv:removal-policy-snapshot',
        snapshotKeeps(copyBounds.tableRecoveryDays),
      );
    }
    const data = new DataBucket(this, 'DataBucket', {
      encryptionKey: key,
      retentionDays: config.retentionDays,
      accessLogRetentionDays: Math.max(config.logRetentionDays, 90),
      removalPolicy: dataRemoval,
      ...(props.dataBucket !== undefined && { existingBucket: props.dataBucket }),
      storageClasses: config.storageClasses,
    });
    this.dataBucket = data.bucket;

    // The bus name is a plain string (given prefix, or derived from the path): the archive's and the
    // projector DLQ's key-policy statements name it without making the key depend on the bus.
    let busName: string | undefined;
    if (props.eventBus !== undefined) {
      this.eventBus = props.eventBus;
    } else {
      // The archive is `<bus>-archive` and may have 48 characters (`idv events replay --bus` finds it
      // by that name); a prefix has at most 40.
      busName = names.optional() ?? names.required('events', ARCHIVE_NAME_MAX - '-archive'.length);
      const created = new EventBus(this, 'EventBus', {
        busName,
        encryptionKey: key,
        archiveRetentionDays: copyBounds.eventArchiveDays,
        schemaDirectory: path.join(PROJECT_ROOT, 'shared', 'events', 'schemas'),
      });
      this.eventBus = created.bus;
      this.eventArchive = created.archive;
    }

    this.webhookApi = new WebhookApi(this, 'WebhookApi', {
      functionSettings,
      webhookRateLimit: config.webhookRateLimit,
      webhookBurstLimit: config.webhookBurstLimit,
      webhookProtection: config.webhookProtection,
      queue: this.resultsQueue,
      secrets: this.secrets,
      encryptionKey: key,
      logRemovalPolicy: dataRemoval,
      names,
      network,
      ...(props.apiGatewayAccountRole === false && { accountCloudWatchRole: false }),
    });
    this.webhookUrlWithoutSecret = this.webhookApi.webhookBaseUrl;
    this.poller = new Poller(this, 'Poller', {
      functionSettings,
      serviceBaseUrl: config.serviceBaseUrl,
      scopes: config.scopes,
      pollSchedule: config.pollSchedule,
      encryptionKey: key,
      queue: this.resultsQueue,
      secrets: this.secrets,
      logRemovalPolicy: dataRemoval,
      network,
    });
    this.resultFetcher = new ResultFetcher(this, 'ResultFetcher', {
      functionSettings,
      serviceBaseUrl: config.serviceBaseUrl,
      scopes: config.scopes,
      retentionDays: config.retentionDays,
      eventCustomerReference: config.eventCustomerReference,
      fetchConcurrency: config.fetchConcurrency,
      fetchReservedConcurrency: config.fetchReservedConcurrency,
      fetchResultMemoryMb: config.fetchResultMemoryMb,
      servicePacePerContainer: config.servicePacePerContainer,
      encryptionKey: key,
      queue: this.queue,
      table: this.resultsTable,
      bucket: this.dataBucket,
      bus: this.eventBus,
      secrets: this.secrets,
      logRemovalPolicy: dataRemoval,
      network,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      environmentName: config.name,
      alarmEmail: config.alarmEmail,
      pendingAlarmMinutes: config.pendingAlarmMinutes,
      metricsServiceName: config.metricsServiceName,
      serviceEnvironment: config.serviceEnvironment,
      encryptionKey: key,
      names,
      ...(props.alarmTopic !== undefined && { alarmTopic: props.alarmTopic }),
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      functions: {
        webhook: this.webhookApi.webhookFunction,
        poll: this.poller.pollFunction,
        fetchResult: this.resultFetcher.fetchResultFunction,
      },
    });
    this.alarmTopic = this.monitoring.topic;

    if (props.analytics !== false) {
      const analyticsProps: AnalyticsIcebergProps = {
        functionSettings,
        retentionDays: config.retentionDays,
        eventCustomerReference: config.eventCustomerReference,
        encryptionKey: key,
        bus: this.eventBus,
        names,
        network,
        accessLogs: data,
        removalPolicy: dataRemoval,
        copyBounds,
        erasureTable: this.resultsTable,
      };
      // The nested stack keeps the ids of the analytics it replaced (`Analytics`/`Resources`): the bucket,
      // database, workgroup, view and analyst policy are updated in place (docs/deploy.md).
      this.analytics =
        props.analytics?.nestedStack === false
          ? new AnalyticsIceberg(this, 'AnalyticsResources', analyticsProps)
          : new AnalyticsIceberg(
              new NestedStack(this, 'Analytics', {
                description: `Analytics of the identity verification results (${config.name})`,
              }),
              'Resources',
              analyticsProps,
            );
      this.#alarmAnalytics(this.analytics);
    }

    this.erasure = new Erasure(this, 'Erasure', {
      functionSettings,
      retentionDays: config.retentionDays,
      table: this.resultsTable,
      markersTable: this.poller.markersTable,
      dataBucket: this.dataBucket,
      // The JSON records of the replaced projector, until they expire (docs/deploy.md).
      ...(this.analytics && { analyticsBucket: this.analytics.bucket }),
      eventBus: this.eventBus,
      queues: [this.queue, this.deadLetterQueue],
      encryptionKey: key,
      logRemovalPolicy: dataRemoval,
      alarmName: names.optional('ResultsPastRetention'),
      network,
      copyBounds,
    });
    this.monitoring.notifyOn(this.erasure.pastRetentionAlarm, 'ResultsPastRetention');
    // The analytics row goes with a row-level DELETE on the Iceberg table, through Athena.
    if (this.analytics) {
      this.erasure.addStatements(
        this.analytics.eraseStatements(),
        "Erasure deletes one result's row of the Iceberg table through Athena: it reads the table's files and writes its delete files under the table's prefix, and Athena writes the answer under the workgroup's results prefix (file names unknown in advance).",
      );
    }

    // cdk-nag Serverless: fetch-result consumes SQS, whose redrive policy is its failure destination.
    Validations.of(this.resultFetcher.fetchResultFunction.function).acknowledge(
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

    if (props.outputs !== false) this.#addOutputs();
  }

  /**
   * Lets `grantee` read stored results: {@link grantReadTable} and {@link grantReadResultObjects}.
   * Nothing is written, listed or deleted; no secret, queue or bus is reached.
   */
  grantReadResults(grantee: iam.IGrantable): void {
    this.grantReadTable(grantee);
    this.grantReadResultObjects(grantee);
  }

  /**
   * Lets `grantee` get and query the results table and its indexes (`GetItem`, `BatchGetItem`, `Query`,
   * `DescribeTable`), and use the key for that only through DynamoDB (`kms:Decrypt`, `kms:DescribeKey`
   * with `kms:ViaService`). Nothing else of the table: no scan, write or delete.
   */
  grantReadTable(grantee: iam.IGrantable): void {
    grantAcknowledged(
      grantee,
      [
        new iam.PolicyStatement({
          actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:DescribeTable'],
          resources: [this.resultsTable.tableArn, `${this.resultsTable.tableArn}/index/*`],
        }),
        keyUseThrough(this.encryptionKey, 'dynamodb', ['kms:Decrypt', 'kms:DescribeKey']),
      ],
      'idv-pipeline grantReadTable: the indexes of the results table (queried by name); reads only.',
    );
  }

  /**
   * Lets `grantee` get the result objects (`s3:GetObject` under `results/` of the data bucket: result.json,
   * images, files) and decrypt them only through S3 (`kms:Decrypt` with `kms:ViaService`, on the bucket's
   * key). No listing, no other prefix (`staging/`), no write or delete.
   */
  grantReadResultObjects(grantee: iam.IGrantable): void {
    const bucketKey = this.dataBucket.encryptionKey ?? this.encryptionKey;
    grantAcknowledged(
      grantee,
      [
        new iam.PolicyStatement({
          actions: ['s3:GetObject'],
          resources: [this.dataBucket.arnForObjects(`${RESULTS_PREFIX}*`)],
        }),
        keyUseThrough(bucketKey, 's3', ['kms:Decrypt']),
      ],
      'idv-pipeline grantReadResultObjects: the objects under results/ of the data bucket (one folder per ' +
        'result, unknown in advance); reads only.',
    );
  }

  /**
   * Subscribes `target` to the pipeline's events: a rule on its bus, in `scope` (the consumer's stack or
   * construct), matching the pipeline's source and `detailTypes` (default: every detail type). EventBridge
   * itself delivers (the bus's key already admits it); what the target needs (a queue's policy, a
   * function's permission) the target adds, as every `IRuleTarget` does.
   */
  addResultRule(
    scope: Construct,
    id: string,
    target: events.IRuleTarget,
    detailTypes: readonly DetailType[] = Object.values(DETAIL_TYPES),
  ): events.Rule {
    return new events.Rule(scope, id, {
      eventBus: this.eventBus,
      description: `idv-pipeline events (${detailTypes.join(', ')}) to a subscriber`,
      eventPattern: { source: [EVENT_SOURCE], detailType: [...detailTypes] },
      targets: [target],
    });
  }

  /**
   * Lets `grantee` query the analytics view as an analyst (the statements of the analyst policy: the
   * workgroup, the Glue database, table and view, reads of the Iceberg table's files, the query results,
   * the key only through S3 for the analytics bucket). Nothing of the data bucket, the results table,
   * the delivery stream or the secrets; nothing is deleted.
   * @throws Error when the pipeline was built with `analytics: false`
   */
  grantReadAnalytics(grantee: iam.IGrantable): void {
    if (!this.analytics) {
      throw new IdvPipelineValidationError('analytics', 'is false: grantReadAnalytics needs analytics', {
        where: this.node.path,
      });
    }
    grantAcknowledged(
      grantee,
      this.analytics.analystStatements,
      'idv-pipeline grantReadAnalytics: the Iceberg table and query results prefixes of the analytics ' +
        'bucket (files per commit and per query) and the key only for objects of that bucket.',
    );
  }

  /**
   * Lets `grantee` run `idv results erase` (docs/erasure.md, "How it runs"): the erasure policy, attached
   * as the managed policy when the principal takes one (a role, user or group), else as its statements.
   * Grant it to an operators' erasure role only: no function of the pipeline and no analyst holds it.
   */
  grantErase(grantee: iam.IGrantable): void {
    const principal = grantee.grantPrincipal;
    if (principal instanceof iam.Role || principal instanceof iam.User || principal instanceof iam.Group) {
      principal.addManagedPolicy(this.erasure.policy);
      return;
    }
    grantAcknowledged(
      grantee,
      this.erasure.statements,
      'idv-pipeline grantErase: the objects under results/ and staging/ of the data bucket (one folder per ' +
        'result, every version) and the index of the results table; deletes only what erasure removes.',
    );
  }

  /**
   * A placeholder address (a domain reserved for examples) is refused in production, where it would send
   * the requests or the alarms nowhere, and a warning elsewhere. `allowPlaceholders` (the prop, or the
   * context `allowPlaceholders` / `allowPlaceholderServiceUrls`) turns the refusal into a warning, for a
   * template check that deploys nothing.
   */
  #refusePlaceholders(settings: PipelineSettings, props: IdvPipelineProps): void {
    const found = placeholderProps(settings);
    if (found.length === 0) return;
    const context = (key: string) => String(this.node.tryGetContext(key)) === 'true';
    const allowed =
      props.allowPlaceholders ?? (context('allowPlaceholders') || context('allowPlaceholderServiceUrls'));
    const message =
      `${found.join(' and ')} ${found.length > 1 ? 'are placeholders' : 'is a placeholder'} ` +
      `(a domain reserved for examples); set the address the service or your on-call gave you, or, for a ` +
      `template check that deploys nothing, allowPlaceholders: true (cdk -c allowPlaceholders=true)`;
    if (settings.name === 'production' && !allowed) {
      throw new IdvPipelineValidationError(found[0]!.split(' ')[0]!, `in production: ${message}`);
    }
    Annotations.of(this).addWarningV2('idv:placeholder-address', `${settings.name}: ${message}`);
  }

  /** Alarms of the analytics delivery, through the pipeline's alarm topic. */
  #alarmAnalytics(analytics: AnalyticsIceberg): void {
    const firehose = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/Firehose',
        metricName,
        dimensionsMap: { DeliveryStreamName: analytics.deliveryStreamName },
        statistic: 'Sum',
        period: Duration.minutes(5),
      });
    this.monitoring.addAlarm(
      'AnalyticsDeliveryErrors',
      firehose('DeliveryToIceberg.FailedRowCount'),
      0,
      'Firehose could not write rows into the analytics Iceberg table: they are under delivery-errors/ of ' +
        'the analytics bucket. See the delivery log group, fix, then replay from the bus archive (docs/analytics.md).',
    );
    this.monitoring.addAlarm(
      'AnalyticsTransformErrors',
      analytics.transform.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      0,
      'The analytics transformation function failed: Firehose retries, then writes the records to ' +
        'delivery-errors/. See its log group.',
    );
  }

  /** Security group, endpoints and subnets of the functions in a VPC. */
  #network(props: IdvPipelineProps, vpc: ec2.IVpc): FunctionNetwork {
    const subnets = props.vpcSubnets ?? { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };
    const securityGroup = new ec2.SecurityGroup(this, 'FunctionSecurityGroup', {
      vpc,
      description: 'idv-pipeline functions: outbound only (the service over HTTPS, AWS APIs).',
      allowAllOutbound: true,
    });
    if (props.vpcEndpoints !== false) {
      const endpoints =
        props.vpcEndpoints === undefined || props.vpcEndpoints === true
          ? defaultEndpoints(this, vpc, subnets)
          : props.vpcEndpoints;
      if (endpoints.vpc !== vpc) {
        throw new IdvPipelineValidationError('vpcEndpoints', "must be the endpoints of the pipeline's vpc", {
          where: this.node.path,
        });
      }
      endpoints.allowFrom(securityGroup);
    }
    return { vpc, subnets, securityGroups: [securityGroup] };
  }

  /**
   * What an operator and `idv --stack` need after `cdk deploy` (shared/deployment-outputs.ts): one output
   * of each resource the pipeline has, secret names only, never a value. Every key has its value here, so
   * a key the CLI reads and the construct forgot does not compile.
   */
  #addOutputs(): void {
    const values: Record<OutputKey, string | undefined> = {
      WebhookBaseUrl: this.webhookUrlWithoutSecret,
      EventBusName: this.eventBus.eventBusName,
      EventBusArn: this.eventBus.eventBusArn,
      EventArchiveName: this.eventArchive?.archiveName,
      ResultsTableName: this.resultsTable.tableName,
      DataBucketName: this.dataBucket.bucketName,
      ResultsQueueUrl: this.queue.queueUrl,
      DeadLetterQueueUrl: this.deadLetterQueue.queueUrl,
      CredentialsSecretName: this.secrets.credentials.secretName,
      WebhookSecretName: this.secrets.webhook.secretName,
      TokenCacheSecretName: this.secrets.tokenCache.secretName,
      AlarmTopicArn: this.alarmTopic.topicArn,
      DashboardName: this.monitoring.dashboard.dashboardName,
      AnalyticsWorkgroup: this.analytics?.workgroupName,
      AnalyticsDatabase: this.analytics?.databaseName,
      AnalyticsBucketName: this.analytics?.bucket.bucketName,
      AnalystPolicyArn: this.analytics?.analystPolicy.managedPolicyArn,
      ErasurePolicyArn: this.erasure.policy.managedPolicyArn,
      ErasureBounds: this.erasure.copyBoundsJson,
      RetentionCheckFunctionName: this.erasure.retentionCheck.function.functionName,
    };
    for (const [id, value] of Object.entries(values)) {
      if (value !== undefined) {
        new CfnOutput(this, id, { value, description: PIPELINE_OUTPUTS[id as OutputKey] });
      }
    }
  }
}
