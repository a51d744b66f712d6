/** Emptying an SQS queue in a test: what the pipeline's consumer would have received. */
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Receives (up to ten at a time, without waiting) and deletes every message of `queueUrl` until a receive
 * comes back empty; the bodies, parsed as JSON, in the order received.
 */
export async function drainQueue<T = Record<string, unknown>>(
  sqs: SQSClient,
  queueUrl: string,
): Promise<T[]> {
  const bodies: T[] = [];
  for (;;) {
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    if (!Messages?.length) return bodies;
    for (const m of Messages) {
      bodies.push(JSON.parse(m.Body!) as T);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}
