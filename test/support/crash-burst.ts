/**
 * The child of the crash test (test/integration/local-crash.test.ts): the local stack on a data directory,
 * as `npm start` opens it (emulators, resources, queues restored from the journal), then the pipeline's
 * own code against a fake service whose poll lists every result of the rounds so far that is not stored
 * yet (as the service keeps listing a result until it is fetched): a poll enqueues them (enqueue markers
 * with a 1 s window, so a message a kill lost between its marker and its send is enqueued again by the
 * next start), then — mode `burst` — the results batch stores every message of the queue (each result
 * with an image and a PDF: three objects and four items), deleting each once stored. Mode `poll` stops
 * after the poll. Prints `ready` when the stack is open (the start's repair lines on stderr) and `done`
 * at the end.
 *
 * Usage: tsx test/support/crash-burst.ts DATA_DIR ROUNDS PER_ROUND burst|poll
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { PollResponse } from '../../shared/api/schemas';
import { processResultsBatch } from '../../shared/pipeline/results-batch';
import { NO_TRACER } from '../../shared/tracing';
import { clientConfig } from './local-aws';
import { localBatchDeps, pollIntoLocalQueue, startLocalStore } from './local-store';
import { FakeSource } from './pipeline-fakes';
import { markedPollRecord, markedResult, markers } from './planted-markers';

const [dataDir, roundsText, perRoundText, mode] = process.argv.slice(2);
const ids: string[] = [];
for (let r = 0; r < Number(roundsText); r++)
  for (let i = 0; i < Number(perRoundText); i++) ids.push(`crash-${r}-${i}`);
const mark = markers('C');
const results = new Map<string, unknown>(ids.map((id) => [id, markedResult(id, mark)]));

const local = await startLocalStore('idv-local', { dataDir: dataDir! });
local.aws.restoreQueues();
for (const line of local.aws.repairs) process.stderr.write(`repaired ${line}\n`);
const { resources, dynamo } = local;
const sqs = new SQSClient(clientConfig(local.aws, 'sqs'));
const events = new EventBridgeClient(clientConfig(local.aws, 'eventBridge'));
process.stdout.write('ready\n');
// A start after a kill polls as the schedule would: at least a marker window after the killed run's poll,
// so a message the kill lost between its marker and its send is enqueued again (within the window the
// marker holds it back, as it holds back a duplicate).
if (mode === 'poll') await new Promise((resolve) => setTimeout(resolve, 1_200));

// The service lists what it has not handed out: every result of the rounds so far not stored yet.
const { Items = [] } = await dynamo.send(
  new ScanCommand({
    TableName: resources.tableName,
    ProjectionExpression: 'resultId, #s',
    ExpressionAttributeNames: { '#s': 'status' },
  }),
);
const stored = new Set(
  Items.filter((item) => item['status'] === 'STORED').map((item) => String(item['resultId'])),
);
const service = {
  poll: async () =>
    ({
      results: ids.filter((id) => !stored.has(id)).map((id) => markedPollRecord(id, mark)),
    }) as PollResponse,
};
await pollIntoLocalQueue(local, sqs, service, 1);
const deps = localBatchDeps(local, events, new FakeSource(results));
for (; mode === 'burst'; ) {
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
