/**
 * The props of `IdvPipeline` (`idv-pipeline/cdk`): the contract, validated where they arrive
 * (infra/idv-pipeline-settings.ts; docs/construct.md).
 */
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { ServiceEnvironment } from '../shared/api/enums';
import type { CustomerReferenceMode } from '../shared/config';
import type { CopyBounds } from '../shared/erasure/bounds';
import type { LogLevel, StorageClassOptions, TracingSetting, WebhookProtection } from './config';
import type { IIdvPipelineVpcEndpoints } from './constructs/vpc-endpoints';

/** Options of the analytics part (docs/analytics.md); `analytics: false` leaves it out. */
export interface IdvAnalyticsOptions {
  /**
   * Whether the analytics resources go into a nested stack of their own (updated apart, their own
   * resource count) or straight into the pipeline's stack. @default true
   */
  readonly nestedStack?: boolean;
}

/** Properties of `IdvPipeline`. */
export interface IdvPipelineProps {
  /**
   * Name of this deployment (`staging`, `production`, `blue`, …: lower-case letters, digits, dashes).
   * `production` keeps production's rules: an alarm target is required and the webhook stage gets WAF.
   */
  readonly environmentName: string;
  /** Base URL (https) of the verification service environment the pipeline talks to. */
  readonly serviceBaseUrl: string;
  /** How long stored results are kept (DynamoDB TTL, S3 lifecycle, event archive): whole days. */
  readonly retention: Duration;
  /** Which service environment `serviceBaseUrl` is (`IDV_ENVIRONMENT`). @default environmentName (staging, production) */
  readonly serviceEnvironment?: ServiceEnvironment;
  /**
   * Prefix of every physical name (bus, archive, API, alarms, dashboard, workgroup, Glue database, key
   * alias, web ACL, …), e.g. `idv-pipeline-staging`. @default no fixed names: CloudFormation names the
   * resources, and the few names the pipeline must know are derived from the construct path and stack
   */
  readonly namePrefix?: string;
  /**
   * Prefix of the three secrets' names (`<prefix>/client-credentials`, …), e.g. `idv-pipeline/staging`.
   * @default `<namePrefix>` with a namePrefix, else CloudFormation names them
   */
  readonly secretNamePrefix?: string;
  /**
   * An existing KMS key for every store, queue, log group, topic and secret of the pipeline. A key of
   * this app gets the statements the pipeline's services need added to its policy; an imported key
   * must allow them already (docs/construct.md, "An existing key"). @default a new key, rotated yearly
   */
  readonly encryptionKey?: kms.IKey;
  /** An existing bucket for the result objects (docs/construct.md, "An existing bucket"). @default a new bucket */
  readonly dataBucket?: s3.IBucket;
  /**
   * Lifecycle transitions of the result objects to the S3 class that costs least for what is left of
   * the retention, among those that read at once (docs/storage.md); `false` keeps every object in S3
   * Standard. With `dataBucket` the bucket's lifecycle is its owner's: the synth notes the rules to add.
   * @default {} (1 day in Standard first, 0.1 late reads per object)
   */
  readonly storageClasses?: false | StorageClassOptions;
  /**
   * An existing event bus the result events are published on. The pipeline then creates no bus, archive
   * or schema registry: archiving is the bus owner's. @default a new KMS-encrypted bus with an archive
   */
  readonly eventBus?: events.IEventBus;
  /** An existing SNS topic every alarm notifies. @default a new KMS-encrypted topic */
  readonly alarmTopic?: sns.ITopic;
  /** An e-mail address subscribed to the pipeline's own alarm topic (created for it). @default none */
  readonly alarmEmail?: string;
  /**
   * A VPC the functions run in, with the endpoints they need (see `vpcEndpoints`). poll and fetch-result
   * reach the service over the internet: the subnets need a route out (NAT). @default no VPC
   */
  readonly vpc?: ec2.IVpc;
  /** The VPC's subnets the functions use. @default private subnets with egress */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * The VPC endpoints the functions use (gateway: S3, DynamoDB; interface with private DNS: SQS, Secrets
   * Manager, EventBridge, X-Ray), which may exist only once per VPC. `true`: created with the first
   * pipeline of the stack in that VPC and shared by the next ones; an `IdvPipelineVpcEndpoints`: those
   * (several stacks, or endpoints owned apart from any pipeline); `false`: the VPC has them already.
   * @default true
   */
  readonly vpcEndpoints?: boolean | IIdvPipelineVpcEndpoints;
  /**
   * The analytics delivery stream, Iceberg table, `results` view, Athena workgroup and analyst policy;
   * `false` leaves them out. @default {}
   */
  readonly analytics?: false | IdvAnalyticsOptions;
  /**
   * A WAF web ACL on the webhook stage (per-IP rate limit, route allow-list); `false` for none.
   * @default { wafRateLimitPer5Min: 600 } in production, false elsewhere
   */
  readonly webhookProtection?: false | WebhookProtection;
  /** Stage-wide webhook throttling, steady requests per second. @default 20 */
  readonly webhookRateLimit?: number;
  /** Stage-wide webhook throttling, burst. @default 40 */
  readonly webhookBurstLimit?: number;
  /** EventBridge schedule expression of the poll, at least every 10 minutes. @default 'rate(1 minute)' */
  readonly pollSchedule?: string;
  /** Days CloudWatch keeps function and access logs. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** OAuth scopes of the shared access token. @default poll.read and result.read */
  readonly scopes?: string[];
  /**
   * Requests per second the service allows the account (the spec states none: ask the service).
   * fetch-result's concurrency and each container's pace follow from it. @default 10
   */
  readonly serviceRateLimit?: number;
  /**
   * Maximum concurrent fetch-result invocations (>= 2): what a backlog may cost the service.
   * @default max(2, ceil(serviceRateLimit ÷ 2)): one result per second per record, two records at once
   */
  readonly fetchConcurrency?: number;
  /**
   * Reserved concurrency of fetch-result (>= fetchConcurrency), or `false` for none (an account whose
   * quota leaves no room to reserve). @default fetchConcurrency
   */
  readonly fetchReservedConcurrency?: number | false;
  /** Memory of fetch-result in MB (it streams each result). @default 256 */
  readonly fetchResultMemorySize?: number;
  /** X-Ray tracing, all functions or by function (docs/deploy.md, "Tracing and its cost"). @default 'active' */
  readonly tracing?: TracingSetting;
  /** Powertools log level of the functions. @default 'INFO' */
  readonly logLevel?: LogLevel;
  /** Alarm when a finished result waits longer than this at the service. @default Duration.minutes(30) */
  readonly pendingAlarmThreshold?: Duration;
  /** Whether result events carry `customerReference`. @default 'omit' for production, else 'include' */
  readonly eventCustomerReference?: CustomerReferenceMode;
  /**
   * What happens to the key, tables, buckets, secrets and logs when the stack goes. Only `DESTROY`
   * deletes them. `RETAIN` keeps them (and turns on the results table's deletion protection);
   * `RETAIN_ON_UPDATE_OR_DELETE` keeps them unless their creation failed. `SNAPSHOT` is kept as
   * `RETAIN`: CloudFormation snapshots no DynamoDB table, S3 bucket or KMS key, and the table keeps its
   * point-in-time recovery (an info annotation says what stays). @default RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Accept placeholder addresses (a service URL or alarm e-mail on a domain reserved for examples:
   * `.example`, `example.com`, `.test`, …) in production, with a warning: for a template check that
   * deploys nothing. Also the context `allowPlaceholders` (or its former name
   * `allowPlaceholderServiceUrls`) set to `true`. @default false: production refuses them
   */
  readonly allowPlaceholders?: boolean;
  /**
   * Create the account's API Gateway CloudWatch Logs role (`AWS::ApiGateway::Account`: one setting per
   * account and region, kept when the stack goes). `false` where the landing zone manages that setting;
   * the webhook stage's access logs need the role to exist. @default true
   */
  readonly apiGatewayAccountRole?: boolean;
  /**
   * The `service` dimension of the functions' custom metrics (namespace `IdvPipeline`), which the alarms
   * and the dashboard watch: unique per pipeline, so that two pipelines in one account and region never
   * read each other's values. @default namePrefix, else a name derived from the construct path
   */
  readonly metricsServiceName?: string;
  /** Stack outputs (CfnOutput) of the names an operator and `idv --stack` need. @default true */
  readonly outputs?: boolean;
  /**
   * How long each copy an erasure cannot delete at once may live (docs/erasure.md): PITR recovery period,
   * event archive, `athena-results/`, `delivery-errors/`, Iceberg snapshots and orphan files; the erasure
   * receipt names the resulting dates. A bound out of range is refused naming it.
   * @default a week each (recovery, query results, delivery errors, snapshots), orphan files 3 days, the
   * archive as long as the results (its events hold no personal data by default)
   */
  readonly copyBounds?: Partial<CopyBounds>;
}
