import type { RemovalPolicy } from 'aws-cdk-lib';
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config';
import type { EnvironmentConfig } from '../config';
import { PipelineFunction } from './pipeline-function';
import type { ResultsQueue } from './results-queue';
import type { Secrets } from './secrets';

/** Properties of {@link Poller}. */
export interface PollerProps {
  /** Environment settings (service URL, scopes, schedule). */
  readonly config: EnvironmentConfig;
  /** Queue the poll function sends each pending resultId to. */
  readonly queue: ResultsQueue;
  /** Credentials and token cache. */
  readonly secrets: Secrets;
  /** What happens to the log group when the stack is deleted. */
  readonly logRemovalPolicy: RemovalPolicy;
  /** Key that encrypts the function's log group. */
  readonly encryptionKey: kms.IKey;
}

/**
 * The polling safety net: an EventBridge schedule (every minute by default) runs the poll function,
 * which lists pending poll records at the service and enqueues their resultIds. It can reach the
 * service and the queue, and nothing else: no S3, no DynamoDB.
 */
export class Poller extends Construct {
  /** The poll function. */
  readonly pollFunction: PipelineFunction;
  /** The schedule rule. */
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: PollerProps) {
    super(scope, id);
    const { config } = props;

    this.pollFunction = new PipelineFunction(this, 'PollFunction', {
      entry: 'functions/poll/handler.ts',
      description: 'Polls the verification service for finished transactions and enqueues their resultIds.',
      config,
      // Shorter than the schedule period, so two runs never overlap.
      timeout: Duration.seconds(50),
      logRemovalPolicy: props.logRemovalPolicy,
      logEncryptionKey: props.encryptionKey,
    });
    const fn = this.pollFunction;
    fn.addEnvironment(ENV.serviceBaseUrl, config.serviceBaseUrl);
    fn.addEnvironment(ENV.scopes, config.scopes.join(','));
    fn.addEnvironment(ENV.credentialsSecretId, props.secrets.credentials.secretArn);
    fn.addEnvironment(ENV.tokenCacheSecretId, props.secrets.tokenCache.secretArn);
    props.secrets.grantServiceAccess(fn.function);
    fn.addEnvironment(ENV.resultsQueueUrl, props.queue.queue.queueUrl);
    props.queue.grantSend(fn.function);

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Runs the poll function: the safety net for missed result webhooks.',
      schedule: events.Schedule.expression(config.pollSchedule),
      // A missed run is repaired by the next one; retrying a stale run would only overlap it.
      targets: [new targets.LambdaFunction(fn.function, { retryAttempts: 0 })],
    });
  }
}
