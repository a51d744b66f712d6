/**
 * The child of the crash test (test/integration/local-crash.test.ts): the local stack on a data directory,
 * as `npm start` opens it (emulators, resources, queues restored from the journal), then a burst that
 * writes many objects through the real pipeline code: a poll enqueues `count` results of round `round`
 * (each with an image and a PDF, so three objects and four items), and the results batch stores every
 * message of the queue — the new ones and those a kill left — deleting each once stored. Prints `ready`
 * when the stack is open (with the start's repair lines on stderr) and `done` when the queue is empty.
 * `count` 0 only finishes what is queued.
 *
 * Usage: tsx test/support/crash-burst.ts DATA_DIR ROUND COUNT
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { PollResponse } from '../../shared/api/schemas';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { DynamoEnqueueMarkers } from '../../shared/pipeline/enqueue-markers';
import { pollAndEnqueue } from '../../shared/pipeline/poll';
import { processResultsBatch, type ResultsBatchDeps } from '../../shared/pipeline/results-batch';
import { PollRecords } from '../../shared/store/poll-records';
import { NO_TRACER } from '../../shared/tracing';
import { clientConfig } from './local-aws';
import { startLocalStore } from './local-store';
import { FakeSource, memoryLogger } from './pipeline-fakes';
import { markedPollRecord, markedResult, markers } from './planted-markers';

const [dataDir, roundText, countText] = process.argv.slice(2);
const round = Number(roundText);
const count = Number(countText);

/** Every result of every round answers (a message restored from an earlier round is stored too). */
const mark = markers('C');
const results = new Map<string, unknown>();
for (let r = 0; r <= round; r++)
  for (let i = 0; i < 200; i++) results.set(`crash-${r}-${i}`, markedResult(`crash-${r}-${i}`, mark));

const local = await startLocalStore('idv-local', { dataDir: dataDir! });
local.aws.restoreQueues();
for (const line of local.aws.repairs) process.stderr.write(`repaired ${line}\n`);
const { resources, dynamo } = local;
const sqs = new SQSClient(clientConfig(local.aws, 'sqs'));
const events = new EventBridgeClient(clientConfig(local.aws, 'eventBridge'));
process.stdout.write('ready\n');

const ids = Array.from({ length: count }, (_, i) => `crash-${round}-${i}`);
await pollAndEnqueue({
  source: { poll: async () => ({ results: ids.map((id) => markedPollRecord(id, mark)) }) as PollResponse },
  sqs,
  queueUrl: resources.queueUrl,
  logger: memoryLogger().logger,
  markers: new DynamoEnqueueMarkers({
    client: dynamo,
    tableName: resources.pollMarkersTableName,
    windowSeconds: 30,
  }),
});
const deps: ResultsBatchDeps = {
  source: new FakeSource(results),
  pollRecords: new PollRecords(dynamo, resources.tableName, 30),
  store: local.store,
  publisher: new EventBridgePublisher(events, resources.eventBusName),
  environment: 'staging',
  eventCustomerReference: 'include',
  retentionDays: 30,
  logger: memoryLogger().logger,
};
for (;;) {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: resources.queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      VisibilityTimeout: 30,
    }),
  );
  if (Messages.length === 0) break;
  const answer = await processResultsBatch(
    Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body! })),
    { deps, tracer: NO_TRACER, metrics: { addMetric: () => undefined } as never },
  );
  const failed = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
  const done = Messages.filter((m) => !failed.has(m.MessageId!));
  if (done.length > 0)
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: resources.queueUrl,
        Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
}
process.stdout.write('done\n');
for (const client of [sqs, events]) client.destroy();
await local.close();
