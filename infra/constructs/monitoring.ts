import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ServiceEnvironment } from '../../shared/api/enums';
import { METRICS } from '../../shared/metrics-names';
import type { ResourceNames } from '../resource-names';
import type { PipelineFunction } from './pipeline-function';

/** Properties of {@link Monitoring}. */
export interface MonitoringProps {
  /** Environment name, shown in the alarm topic's display name. */
  readonly environmentName: string;
  /** E-mail address subscribed to the alarm topic. @default no e-mail subscription */
  readonly alarmEmail?: string;
  /** Alarm when the oldest pending result has waited longer than this many minutes at the service. */
  readonly pendingAlarmMinutes: number;
  /** The `service` dimension of the functions' custom metrics. */
  readonly metricsServiceName: string;
  /** The `environment` dimension of the functions' custom metrics. */
  readonly serviceEnvironment: ServiceEnvironment;
  /** Key that encrypts the alarm topic. */
  readonly encryptionKey: kms.IKey;
  /** Names of the alarms and the dashboard (none without a prefix). */
  readonly names: ResourceNames;
  /**
   * An existing topic every alarm notifies. Without `alarmEmail` no topic is created; with it, a
   * topic of its own is created for the e-mail subscription and alarms notify both.
   * @default a new KMS-encrypted topic
   */
  readonly alarmTopic?: sns.ITopic;
  /** The results queue. */
  readonly queue: sqs.IQueue;
  /** The results queue's dead-letter queue. */
  readonly deadLetterQueue: sqs.IQueue;
  /** The three functions, labelled for alarms and widgets. */
  readonly functions: {
    readonly webhook: PipelineFunction;
    readonly poll: PipelineFunction;
    readonly fetchResult: PipelineFunction;
  };
}

/**
 * Alarms to one KMS-encrypted SNS topic (optionally with an e-mail subscription) and a dashboard.
 * The alarms cover the ways a result can be lost or late: messages in the DLQ, a queue that is not
 * drained, failing functions, a poll that cannot reach the service or stopped running, and results
 * waiting at the service for longer than the threshold (the service deletes unretrieved data).
 */
export class Monitoring extends Construct {
  /** Topic every alarm notifies (the given one, or the one created here). */
  readonly topic: sns.ITopic;
  /** The alarms, by purpose. */
  readonly alarms: Record<string, cloudwatch.Alarm> = {};
  /** The dashboard. */
  readonly dashboard: cloudwatch.Dashboard;
  /** Where every alarm notifies (the created topic, the given one, or both). */
  readonly #notify: actions.SnsAction[] = [];
  readonly #names: ResourceNames;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.#names = props.names;
    const notify = this.#notify;
    if (props.alarmTopic === undefined || props.alarmEmail !== undefined) {
      const topic = new sns.Topic(this, 'AlarmTopic', {
        displayName: `idv-pipeline ${props.environmentName} alarms`,
        masterKey: props.encryptionKey,
        enforceSSL: true,
      });
      if (props.alarmEmail !== undefined) {
        topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
        Validations.of(topic).acknowledge({
          id: 'Serverless-SNSRedrivePolicy',
          reason:
            'An alarm e-mail that cannot be delivered would wait in a queue nobody reads; the alarm state ' +
            'stays in CloudWatch and on the dashboard, and the OK/ALARM transitions are sent again.',
        });
      }
      notify.push(new actions.SnsAction(topic));
      this.topic = topic;
    } else {
      this.topic = props.alarmTopic;
    }
    // SNS cannot subscribe a topic to a topic: an existing on-call topic gets every alarm directly.
    if (props.alarmTopic !== undefined) notify.push(new actions.SnsAction(props.alarmTopic));
    this.#addAlarms(props);
    this.dashboard = this.#addDashboard(props);
  }

  /**
   * An alarm of another part of the pipeline (analytics, erasure) that notifies like the others:
   * `<prefix>-<key>` with a name prefix, above `threshold` by default, missing data not breaching.
   */
  addAlarm(
    key: string,
    metric: cloudwatch.IMetric,
    threshold: number,
    description: string,
    options: Partial<cloudwatch.CreateAlarmOptions> = {},
  ): cloudwatch.Alarm {
    const created = new cloudwatch.Alarm(this, `${key}Alarm`, {
      metric,
      alarmName: this.#names.optional(key),
      alarmDescription: description,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      ...options,
    });
    this.notifyOn(created, key);
    return created;
  }

  /** Lets an alarm created elsewhere notify the alarm topic(s) on ALARM and OK, listed under `key`. */
  notifyOn(alarm: cloudwatch.Alarm, key: string): void {
    alarm.addAlarmAction(...this.#notify);
    alarm.addOkAction(...this.#notify);
    this.alarms[key] = alarm;
  }

  #addAlarms(props: MonitoringProps): void {
    const { functions } = props;
    const pipelineMetric = metricOf(props);
    const alarm = (
      key: string,
      metric: cloudwatch.IMetric,
      threshold: number,
      description: string,
      options: Partial<cloudwatch.CreateAlarmOptions> = {},
    ): void => {
      this.addAlarm(key, metric, threshold, description, options);
    };

    alarm(
      'DeadLetterQueueNotEmpty',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      0,
      'Results failed repeatedly and wait in the DLQ. Fix the cause, then redrive (docs/deploy.md).',
    );
    alarm(
      'QueueOldestMessageAge',
      props.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      Duration.minutes(15).toSeconds(),
      'A message has waited > 15 min in the results queue: fetch-result is failing or throttled.',
    );
    for (const [label, fn] of Object.entries(functions)) {
      alarm(
        `${label[0]!.toUpperCase()}${label.slice(1)}FunctionErrors`,
        fn.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        0,
        `The ${label} function failed at least once in 5 minutes; see its log group.`,
      );
    }
    alarm(
      'PollFailures',
      pipelineMetric(METRICS.names.pollFailures, 'Sum').with({ period: Duration.minutes(5) }),
      2,
      'Polling failed 3+ times in 5 minutes: the service or the credentials are not usable.',
    );
    alarm(
      'PollNotRunning',
      functions.poll.function.metricInvocations({ period: Duration.minutes(15), statistic: 'Sum' }),
      1,
      'The poll function did not run for 15 minutes: the schedule is disabled or broken.',
      {
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      },
    );
    alarm(
      'ResultsPendingTooLong',
      pipelineMetric(METRICS.names.oldestPendingAgeSeconds, 'Maximum').with({ period: Duration.minutes(5) }),
      Duration.minutes(props.pendingAlarmMinutes).toSeconds(),
      `A finished result has waited > ${props.pendingAlarmMinutes} min at the service without being ` +
        'stored; unretrieved results are deleted after the account retention period.',
    );
    // The polling metadata of each result (product, completion time; docs/analytics.md): a batch whose one
    // poll call failed, and results stored after their polling record was already gone.
    alarm(
      'PollMetadataFailures',
      pipelineMetric(METRICS.names.pollMetadataFailures, 'Sum').with({ period: Duration.minutes(5) }),
      2,
      'The poll call for result metadata failed 3+ times in 5 minutes: results are stored without product ' +
        'and completion time (completedKnown: false). Check the service and the credentials.',
    );
    alarm(
      'ResultsWithoutPollRecord',
      pipelineMetric(METRICS.names.resultsWithoutPollRecord, 'Sum').with({ period: Duration.hours(1) }),
      5,
      'More than 5 results in an hour were stored after their polling record was gone (no product, no ' +
        'completion time): fetch-result lags behind the service, or another client fetches the results.',
    );
  }

  #addDashboard(props: MonitoringProps): cloudwatch.Dashboard {
    const pipelineMetric = metricOf(props);
    const functionList = Object.entries(props.functions);
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.names.optional(),
      defaultInterval: Duration.hours(6),
    });
    dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: Object.values(this.alarms),
        width: 24,
        height: 4,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Results queue',
        left: [
          props.queue.metricApproximateNumberOfMessagesVisible({ label: 'visible' }),
          props.queue.metricApproximateNumberOfMessagesNotVisible({ label: 'in flight' }),
          props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'dead-lettered' }),
        ],
        right: [props.queue.metricApproximateAgeOfOldestMessage({ label: 'oldest message age (s)' })],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Pending at the service',
        left: [pipelineMetric(METRICS.names.pendingResults, 'Maximum').with({ label: 'pending results' })],
        right: [
          pipelineMetric(METRICS.names.oldestPendingAgeSeconds, 'Maximum').with({
            label: 'oldest pending age (s)',
          }),
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Results stored / unavailable',
        left: [
          pipelineMetric(METRICS.names.resultsStored, 'Sum').with({ label: 'stored' }),
          pipelineMetric(METRICS.names.resultsUnavailable, 'Sum').with({ label: 'unavailable' }),
          pipelineMetric(METRICS.names.duplicatesSkipped, 'Sum').with({ label: 'duplicates skipped' }),
          pipelineMetric(METRICS.names.webhooksAccepted, 'Sum').with({ label: 'webhooks accepted' }),
          pipelineMetric(METRICS.names.pollFailures, 'Sum').with({ label: 'poll failures' }),
        ],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Function errors',
        left: functionList.map(([label, fn]) => fn.function.metricErrors({ label, statistic: 'Sum' })),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Function duration (p99)',
        left: functionList.map(([label, fn]) => fn.function.metricDuration({ label, statistic: 'p99' })),
        width: 8,
      }),
    );
    return dashboard;
  }
}

/** A metric the pipeline's functions publish, with the dimensions Powertools and the functions add. */
function metricOf(dimensions: Pick<MonitoringProps, 'metricsServiceName' | 'serviceEnvironment'>) {
  return (metricName: string, statistic: string): cloudwatch.Metric =>
    new cloudwatch.Metric({
      namespace: METRICS.namespace,
      metricName,
      // Powertools adds the `service` dimension; the functions add the environment.
      dimensionsMap: {
        service: dimensions.metricsServiceName,
        [METRICS.environmentDimension]: dimensions.serviceEnvironment,
      },
      statistic,
      period: Duration.minutes(1),
    });
}
