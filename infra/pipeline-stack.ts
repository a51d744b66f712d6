import { Duration, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { EnvironmentConfig, RemovalPolicySetting } from './config';
import type { AnalyticsIceberg } from './constructs/analytics-iceberg';
import type { Monitoring } from './constructs/monitoring';
import type { Poller } from './constructs/poller';
import type { ResultFetcher } from './constructs/result-fetcher';
import type { ResultsQueue } from './constructs/results-queue';
import type { Secrets } from './constructs/secrets';
import type { WebhookApi } from './constructs/webhook-api';
import { IdvPipeline } from './idv-pipeline';
import type { IdvPipelineProps } from './idv-pipeline-props';
import { secretNamePrefix } from './secret-names';

/** Properties of {@link PipelineStack}. */
export interface PipelineStackProps extends StackProps {
  /** The validated settings of the environment this stack serves. */
  readonly config: EnvironmentConfig;
}

/** Stack name of an environment: `IdvPipeline-staging`, `IdvPipeline-production`. */
export function stackName(environment: string): string {
  return `IdvPipeline-${environment}`;
}

/** The physical-name prefix of the app's environments: `idv-pipeline-<env>`, as deployed since the start. */
export function appNamePrefix(environment: string): string {
  return `idv-pipeline-${environment}`;
}

/**
 * This repository's app is one consumer of {@link IdvPipeline}: one stack per environment of cdk.json,
 * with today's names (`idv-pipeline-<env>`, secrets `idv-pipeline/<env>/…`). The pipeline's id is
 * `Default`, which CDK leaves out of logical ids: every resource keeps the logical id it had before the
 * construct existed, so a deploy updates in place (test/infra/app-templates.test.ts pins the templates).
 */
export class PipelineStack extends Stack {
  /** The pipeline. */
  readonly pipeline: IdvPipeline;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { config } = props;
    Tags.of(this).add('project', 'idv-pipeline');
    Tags.of(this).add('environment', config.name);
    this.pipeline = new IdvPipeline(this, 'Default', pipelinePropsOf(this, config));
  }

  /** The webhook API and its function. */
  get webhookApi(): WebhookApi {
    return this.pipeline.webhookApi;
  }
  /** The poll schedule and its function. */
  get poller(): Poller {
    return this.pipeline.poller;
  }
  /** The fetch-result function and its queue subscription. */
  get resultFetcher(): ResultFetcher {
    return this.pipeline.resultFetcher;
  }
  /** The results queue and its DLQ. */
  get resultsQueue(): ResultsQueue {
    return this.pipeline.resultsQueue;
  }
  /** The three secrets. */
  get secrets(): Secrets {
    return this.pipeline.secrets;
  }
  /** Alarm topic, alarms and dashboard. */
  get monitoring(): Monitoring {
    return this.pipeline.monitoring;
  }
  /** Delivery stream, Iceberg table and view, Athena workgroup, analyst policy (docs/analytics.md). */
  get analytics(): AnalyticsIceberg {
    return this.pipeline.analytics!;
  }
}

/** cdk.json's removal policies as `RemovalPolicy` values. */
const REMOVAL_POLICIES: Readonly<Record<RemovalPolicySetting, RemovalPolicy>> = {
  retain: RemovalPolicy.RETAIN,
  snapshot: RemovalPolicy.SNAPSHOT,
  'retain-on-update-or-delete': RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
  destroy: RemovalPolicy.DESTROY,
};

/** An environment of cdk.json as IdvPipeline props. */
function pipelinePropsOf(scope: Construct, config: EnvironmentConfig): IdvPipelineProps {
  return {
    environmentName: config.name,
    serviceEnvironment: config.serviceEnvironment,
    serviceBaseUrl: config.serviceBaseUrl,
    retention: Duration.days(config.retentionDays),
    namePrefix: appNamePrefix(config.name),
    secretNamePrefix: secretNamePrefix(config.name),
    ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
    ...(config.alarmTopicArn !== undefined && {
      alarmTopic: sns.Topic.fromTopicArn(scope, 'AlarmTarget', config.alarmTopicArn),
    }),
    webhookProtection: config.webhookProtection,
    webhookRateLimit: config.webhookRateLimit,
    webhookBurstLimit: config.webhookBurstLimit,
    pollSchedule: config.pollSchedule,
    logRetention: config.logRetentionDays as logs.RetentionDays,
    scopes: [...config.scopes],
    serviceRateLimit: config.serviceRateLimit,
    fetchConcurrency: config.fetchConcurrency,
    fetchReservedConcurrency: config.fetchReservedConcurrency,
    fetchResultMemorySize: config.fetchResultMemoryMb,
    tracing: config.tracing,
    logLevel: config.logLevel,
    pendingAlarmThreshold: Duration.minutes(config.pendingAlarmMinutes),
    eventCustomerReference: config.eventCustomerReference,
    removalPolicy: REMOVAL_POLICIES[config.removalPolicy],
    storageClasses: config.storageClasses,
    // The dimension the app's alarms and dashboards have watched since the start.
    metricsServiceName: config.metricsServiceName,
  };
}
