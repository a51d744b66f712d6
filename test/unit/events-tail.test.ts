import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteRuleCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { followFile, tailAwsEvents } from '../../bin/cli/events-tail';

const ebMock = mockClient(EventBridgeClient);
const sqsMock = mockClient(SQSClient);

const RULE_ARN = 'arn:aws:events:eu-west-1:111122223333:rule/idv-bus/idv-tail-abc';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/111122223333/idv-tail-abc';

function clients() {
  return {
    events: new EventBridgeClient({ region: 'eu-west-1' }),
    sqs: new SQSClient({ region: 'eu-west-1' }),
  };
}

describe('events tail on AWS (temporary rule and queue)', () => {
  beforeEach(() => {
    ebMock.reset();
    sqsMock.reset();
    ebMock.on(PutRuleCommand).resolves({ RuleArn: RULE_ARN });
    ebMock.on(PutTargetsCommand).resolves({ FailedEntryCount: 0 });
    ebMock.on(RemoveTargetsCommand).resolves({});
    ebMock.on(DeleteRuleCommand).resolves({});
    sqsMock.on(CreateQueueCommand).resolves({ QueueUrl: QUEUE_URL });
    sqsMock
      .on(GetQueueAttributesCommand)
      .resolves({ Attributes: { QueueArn: 'arn:aws:sqs:eu-west-1:1:idv-tail-abc' } });
    sqsMock.on(DeleteMessageBatchCommand).resolves({});
    sqsMock.on(DeleteQueueCommand).resolves({});
  });

  it('prints each event, and on Ctrl-C removes the target, the rule and the queue', async () => {
    // Prepare
    const controller = new AbortController();
    const printed: string[] = [];
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [{ Body: '{"detail-type":"VerificationResultStored"}', ReceiptHandle: 'rh' }],
      })
      .callsFake(async () => {
        // Ctrl-C while the next long poll waits.
        controller.abort();
        throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      });

    // Act
    const summary = await tailAwsEvents({
      ...clients(),
      busName: 'idv-bus',
      suffix: 'abc',
      signal: controller.signal,
      onEvent: (json) => printed.push(json),
    });

    // Assess
    expect(printed).toEqual(['{"detail-type":"VerificationResultStored"}']);
    expect(summary.received).toBe(1);
    const rule = ebMock.commandCalls(PutRuleCommand)[0]!.args[0].input;
    expect(rule).toMatchObject({ Name: 'idv-tail-abc', EventBusName: 'idv-bus' });
    const policy = JSON.parse(sqsMock.commandCalls(CreateQueueCommand)[0]!.args[0].input.Attributes!.Policy!);
    expect(policy.Statement[0].Condition).toEqual({ ArnEquals: { 'aws:SourceArn': RULE_ARN } });
    expect(ebMock.commandCalls(RemoveTargetsCommand)[0]!.args[0].input).toMatchObject({
      Rule: 'idv-tail-abc',
      EventBusName: 'idv-bus',
      Ids: ['idv-tail'],
    });
    expect(ebMock.commandCalls(DeleteRuleCommand)[0]!.args[0].input).toMatchObject({ Name: 'idv-tail-abc' });
    expect(sqsMock.commandCalls(DeleteQueueCommand)[0]!.args[0].input).toEqual({ QueueUrl: QUEUE_URL });
    expect(summary.removed).toHaveLength(3);
  });

  it('removes the rule and the queue when a later step fails, and still reports the failure', async () => {
    // Prepare
    ebMock
      .on(PutTargetsCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));

    // Act
    const tail = tailAwsEvents({
      ...clients(),
      busName: 'idv-bus',
      suffix: 'abc',
      signal: new AbortController().signal,
      onEvent: () => undefined,
    });

    // Assess
    await expect(tail).rejects.toThrow('denied');
    expect(ebMock.commandCalls(RemoveTargetsCommand)).toHaveLength(0);
    expect(ebMock.commandCalls(DeleteRuleCommand)).toHaveLength(1);
    expect(sqsMock.commandCalls(DeleteQueueCommand)).toHaveLength(1);
  });

  it('names what it could not remove, and goes on removing the rest', async () => {
    // Prepare
    const controller = new AbortController();
    controller.abort();
    ebMock
      .on(DeleteRuleCommand)
      .rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    const notes: string[] = [];

    // Act
    const summary = await tailAwsEvents({
      ...clients(),
      busName: 'idv-bus',
      suffix: 'abc',
      signal: controller.signal,
      onEvent: () => undefined,
      onNote: (line) => notes.push(line),
    });

    // Assess
    expect(notes).toContain('could not remove rule idv-tail-abc (ThrottlingException): remove it by hand');
    expect(sqsMock.commandCalls(DeleteQueueCommand)).toHaveLength(1);
    expect(summary.removed).toEqual(['target idv-tail of rule idv-tail-abc', `queue ${QUEUE_URL}`]);
  });
});

describe('events tail --local (follow events.jsonl)', () => {
  it('prints only the lines appended after the start, whole lines only, until stopped', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'idv-tail-'));
    const file = join(dir, 'events.jsonl');
    writeFileSync(file, '{"old":1}\n');
    const controller = new AbortController();
    const lines: string[] = [];

    // Act
    const following = followFile({
      file,
      signal: controller.signal,
      intervalMs: 10,
      onLine: (line) => lines.push(line),
    });
    // followFile takes the file's size before it first yields: what is appended from here on is new.
    appendFileSync(file, '{"new":1}\n{"new":');
    await vi.waitFor(() => expect(lines).toEqual(['{"new":1}']), { interval: 5 });
    appendFileSync(file, '2}\n');
    await vi.waitFor(() => expect(lines).toHaveLength(2), { interval: 5 });
    controller.abort();
    const count = await following;
    rmSync(dir, { recursive: true, force: true });

    // Assess
    expect(lines).toEqual(['{"new":1}', '{"new":2}']);
    expect(count).toBe(2);
  });
});
