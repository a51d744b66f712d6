import { Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config';
import { keyUseThrough } from './encryption-key';

/** Properties of {@link ResultsQueue}. */
export interface ResultsQueueProps {
  /** Key that encrypts both queues. */
  readonly encryptionKey: kms.IKey;
  /** Timeout of the consuming function; the visibility timeout is six times this (AWS guidance). */
  readonly consumerTimeout: Duration;
  /** Receives before a message moves to the dead-letter queue. @default 5 */
  readonly maxReceiveCount?: number;
}

/**
 * The results queue (one message per resultId to fetch, from webhook and poll) and its dead-letter
 * queue. Both are KMS-encrypted and refuse non-TLS requests; messages are kept 14 days, the SQS maximum,
 * so an outage of the service or of fetch-result does not lose a resultId.
 */
export class ResultsQueue extends Construct {
  /** Queue of resultIds to fetch. */
  readonly queue: sqs.Queue;
  /** Messages that failed `maxReceiveCount` times; alarmed, and redriven by the operator. */
  readonly deadLetterQueue: sqs.Queue;
  /** Receives before a message is dead-lettered. */
  readonly maxReceiveCount: number;
  /** How long a received message stays invisible: the poll's enqueue-marker window too. */
  readonly visibilityTimeout: Duration;
  private readonly encryptionKey: kms.IKey;

  constructor(scope: Construct, id: string, props: ResultsQueueProps) {
    super(scope, id);
    this.maxReceiveCount = props.maxReceiveCount ?? 5;
    this.encryptionKey = props.encryptionKey;
    this.visibilityTimeout = Duration.seconds(props.consumerTimeout.toSeconds() * 6);

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        'This is the dead-letter queue: its messages are kept 14 days, alarmed on, and moved back to the ' +
        'results queue by the operator (`idv dlq redrive`), not dead-lettered again.',
    });

    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      // Reuse data keys for 5 minutes: fewer KMS calls at a negligible cost in key exposure.
      dataKeyReuse: Duration.minutes(5),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // A message in flight must not reappear while a (retrying) invocation still works on it.
      // A crashed invocation's publication claim expires before its message is visible again (docs/pipeline.md).
      visibilityTimeout: this.visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: this.maxReceiveCount },
    });
  }

  /**
   * What a producer (webhook, poll) needs and nothing more: `sqs:SendMessage` (which also authorises
   * SendMessageBatch) on the results queue, and the data keys SQS creates and reads for it. Unlike
   * `queue.grantSendMessages` no GetQueueAttributes/GetQueueUrl and no `kms:Encrypt`/`kms:ReEncrypt*`.
   * Sets the function's `ENV.resultsQueueUrl` too, so a grant and the variable that uses it never part.
   */
  grantSend(fn: lambda.Function): void {
    fn.addEnvironment(ENV.resultsQueueUrl, this.queue.queueUrl);
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    fn.addToRolePolicy(keyUseThrough(this.encryptionKey, 'sqs', ['kms:GenerateDataKey', 'kms:Decrypt']));
  }
}
