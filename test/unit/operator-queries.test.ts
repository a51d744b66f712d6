import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isReplayed, markReplay, replayOfItem } from '../../bin/cli/events-replay';
import {
  type LogsInsightsPort,
  LogsQueryError,
  queryTraceSteps,
  traceQueryString,
} from '../../bin/cli/logs-insights';
import { runCli } from '../../bin/cli/main';
import { traceLogs } from '../../bin/cli/results';
import type { CliIo } from '../../bin/cli/types';
import { DETAIL_TYPES } from '../../shared/events/names';
import { peekDlq, redriveDlq } from '../../shared/queries/dlq';
import { buildTrace, reasonCodeOf, stepOfLogLine } from '../../shared/queries/trace';
import { buildStoredItem } from '../../shared/store/item';
import { eventValidators } from '../support/pipeline-fakes';

const sqsMock = mockClient(SQSClient);
const dynamoMock = mockClient(DynamoDBDocumentClient);
const sqs = () => new SQSClient({ region: 'eu-west-1' });

/** A Logs Insights double: answers Running once, then Complete with `rows`, and records the query. */
function fakeLogs(rows: { field: string; value: string }[][], finalStatus = 'Complete') {
  const queries: string[] = [];
  let polls = 0;
  const port: LogsInsightsPort = {
    startQuery: async (input) => {
      queries.push(input.queryString);
      return 'q-1';
    },
    getQueryResults: async () => {
      polls++;
      return polls === 1 ? { status: 'Running', results: [] } : { status: finalStatus, results: rows };
    },
    close: () => undefined,
  };
  return { port, queries };
}

const row = (fields: Record<string, string>) =>
  Object.entries(fields).map(([field, value]) => ({ field, value }));

describe('peekDlq', () => {
  beforeEach(() => sqsMock.reset());

  it('returns every message it received at once (visibility 0), drops repeats, deletes nothing', async () => {
    // Prepare
    const a = {
      MessageId: 'm-a',
      ReceiptHandle: 'rh-a',
      Body: '{"resultId":"r-1","source":"poll","transactionId":"t-1","customerReference":"Jane Doe"}',
      Attributes: {
        ApproximateReceiveCount: '3',
        SentTimestamp: '1780000000000',
        ApproximateFirstReceiveTimestamp: '1780000001000',
      },
    };
    const b = {
      MessageId: 'm-b',
      ReceiptHandle: 'rh-b',
      Body: '{"resultId":"bad id with spaces"}',
      Attributes: {},
    };
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [a, b] })
      .resolves({ Messages: [a] });

    // Act
    const entries = await peekDlq({ sqs: sqs(), dlqUrl: 'dlq' });

    // Assess
    const receives = sqsMock.commandCalls(ReceiveMessageCommand);
    expect(receives).toHaveLength(2);
    const returned = sqsMock
      .commandCalls(ChangeMessageVisibilityBatchCommand)
      .flatMap((call) => call.args[0].input.Entries ?? []);
    expect(returned.map((entry) => [entry.ReceiptHandle, entry.VisibilityTimeout])).toEqual([
      ['rh-a', 0],
      ['rh-b', 0],
      ['rh-a', 0],
    ]);
    expect(sqsMock.commandCalls(DeleteMessageBatchCommand)).toHaveLength(0);
    expect(entries).toEqual([
      {
        messageId: 'm-a',
        kind: 'result',
        resultId: 'r-1',
        source: 'poll',
        transactionId: 't-1',
        receiveCount: 3,
        sentAt: new Date(1780000000000).toISOString(),
        firstReceiveAt: new Date(1780000001000).toISOString(),
      },
      expect.objectContaining({
        messageId: 'm-b',
        kind: 'malformed',
        problem: expect.stringContaining('resultId'),
      }),
    ]);
    // Hints that may be personal data are never part of an entry.
    expect(JSON.stringify(entries)).not.toContain('Jane');
    expect(JSON.stringify(entries)).not.toContain('bad id');
  });
});

describe('peekDlq counts', () => {
  beforeEach(() => sqsMock.reset());

  it('shows the deliveries before the DLQ (the redrive policy), however often it was looked at', async () => {
    // Prepare: 3 deliveries failed, then 8 receives for views raised SQS's counter to 11.
    sqsMock
      .on(GetQueueAttributesCommand)
      .resolves({ Attributes: { RedrivePolicy: '{"deadLetterTargetArn":"arn:dlq","maxReceiveCount":3}' } });
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          {
            MessageId: 'm-a',
            ReceiptHandle: 'rh-a',
            Body: '{"resultId":"r-1","source":"poll"}',
            Attributes: { ApproximateReceiveCount: '11' },
          },
        ],
      })
      .resolves({ Messages: [] });

    // Act
    const entries = await peekDlq({ sqs: sqs(), dlqUrl: 'dlq', queueUrl: 'queue' });

    // Assess
    expect(entries.map((entry) => entry.receiveCount)).toEqual([3]);
    expect(sqsMock.commandCalls(ChangeMessageVisibilityBatchCommand)).toHaveLength(1);
  });
});

describe('redriveDlq --result-id', () => {
  beforeEach(() => sqsMock.reset());

  it("moves only that result's messages and makes the others visible again at once", async () => {
    // Prepare
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          { MessageId: 'a', ReceiptHandle: 'rh-a', Body: '{"resultId":"r-1","source":"poll"}' },
          { MessageId: 'b', ReceiptHandle: 'rh-b', Body: '{"resultId":"r-2","source":"webhook"}' },
          { MessageId: 'c', ReceiptHandle: 'rh-c', Body: 'not json' },
        ],
      })
      .resolves({});
    sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '1' }] as never, Failed: [] });
    sqsMock.on(DeleteMessageBatchCommand).resolves({});
    sqsMock.on(ChangeMessageVisibilityBatchCommand).resolves({});

    // Act
    const summary = await redriveDlq({ sqs: sqs(), dlqUrl: 'dlq', queueUrl: 'q', resultId: 'r-2' });

    // Assess
    expect(summary).toEqual({ moved: 1, kept: 0, skipped: 2 });
    const sent = sqsMock.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries!;
    expect(sent.map((entry) => JSON.parse(entry.MessageBody!))).toEqual([
      { resultId: 'r-2', source: 'redrive' },
    ]);
    expect(sqsMock.commandCalls(DeleteMessageBatchCommand)[0]!.args[0].input.Entries).toEqual([
      { Id: '1', ReceiptHandle: 'rh-b' },
    ]);
    const shown = sqsMock.commandCalls(ChangeMessageVisibilityBatchCommand)[0]!.args[0].input.Entries!;
    expect(shown.map((entry) => [entry.ReceiptHandle, entry.VisibilityTimeout])).toEqual([
      ['rh-a', 0],
      ['rh-c', 0],
    ]);
  });
});

describe('the trace of one result', () => {
  it('orders the log steps and the item and publication steps by time', () => {
    // Prepare
    const item = buildStoredItem({
      hints: { resultId: 'r-1', source: 'webhook', product: 'IDV_STANDARD' },
      document: { result: 'APPROVED', identity: { result: 'APPROVED' } },
      stored: { resultKey: 'results/r-1/result.json', objects: [], documentBytes: 10 },
      bucket: 'b',
      storedAt: '2026-08-10T12:00:05.000Z',
      retentionDays: 30,
    });

    // Act
    const trace = buildTrace({
      resultId: 'r-1',
      item,
      publication: { status: 'STORED', publishedAt: '2026-08-10T12:00:06.000Z' },
      steps: [
        { at: '2026-08-10T12:00:04.000Z', kind: 'fetch', from: 'logs', outcome: 'ok' },
        { at: '2026-08-10T12:00:00.000Z', kind: 'announced', from: 'logs', source: 'webhook' },
        {
          at: '2026-08-10T12:00:02.000Z',
          kind: 'fetch',
          from: 'logs',
          outcome: 'failed',
          reason: 'ServerError 503',
        },
      ],
    });

    // Assess
    expect(trace.steps.map((step) => `${step.kind}:${step.outcome ?? ''}`)).toEqual([
      'announced:',
      'fetch:failed',
      'fetch:ok',
      'stored:STORED',
      'published:VerificationResultStored',
    ]);
    expect(trace).toMatchObject({ status: 'STORED', result: 'APPROVED', sections: { identity: 'APPROVED' } });
  });

  it("keeps reason codes and the pipeline's own message, never an error's text", () => {
    // Act
    const step = stepOfLogLine(
      {
        timestamp: '2026-08-10T12:00:02.000Z',
        message: 'message failed: left for redelivery',
        error: { name: 'ServerError', message: 'Jane Doe, born 1970-01-01', status: 503 },
      },
      'logs',
    );

    // Assess
    expect(step).toMatchObject({ kind: 'fetch', outcome: 'failed', reason: 'ServerError 503' });
    expect(JSON.stringify(step)).not.toContain('Jane');
    expect(reasonCodeOf({ reason: 'BODY_TRUNCATED' })).toBe('BODY_TRUNCATED');
    expect(reasonCodeOf({ reason: 'has spaces, names' })).toBeUndefined();
  });

  it('queries Logs Insights by the resultId correlation id and waits for Complete', async () => {
    // Prepare
    const { port, queries } = fakeLogs([
      row({ '@timestamp': '2026-08-10 12:00:00.000', message: 'webhook accepted' }),
      row({
        '@timestamp': '2026-08-10 12:00:01.000',
        message: 'message failed: left for redelivery',
        'error.name': 'ServerError',
        'error.status': '500',
      }),
      row({ '@timestamp': '2026-08-10 12:00:30.000', message: 'result stored' }),
      row({ '@timestamp': '2026-08-10 12:00:31.000', message: 'something unrelated' }),
    ]);

    // Act
    const steps = await queryTraceSteps({
      logs: port,
      logGroupNames: ['/aws/lambda/fetch'],
      resultId: 'r-1',
      since: new Date('2026-08-10T00:00:00Z'),
      until: new Date('2026-08-11T00:00:00Z'),
      sleep: async () => undefined,
    });

    // Assess
    expect(queries[0]).toContain('filter resultId = "r-1"');
    expect(steps.map((step) => [step.at, step.kind, step.outcome, step.reason])).toEqual([
      ['2026-08-10T12:00:00.000Z', 'announced', undefined, undefined],
      ['2026-08-10T12:00:01.000Z', 'fetch', 'failed', 'ServerError 500'],
      ['2026-08-10T12:00:30.000Z', 'fetch', 'ok', undefined],
    ]);
  });

  it('refuses a resultId that could change the query, and reports a failed query', async () => {
    // Act & Assess
    expect(() => traceQueryString('r-1" | filter 1=1')).toThrow(LogsQueryError);
    const { port } = fakeLogs([], 'Failed');
    await expect(
      queryTraceSteps({
        logs: port,
        logGroupNames: ['g'],
        resultId: 'r-1',
        since: new Date(0),
        until: new Date(),
        sleep: async () => undefined,
      }),
    ).rejects.toThrow(/ended Failed/);
  });
});

describe('idv results trace on AWS', () => {
  const opened = traceLogs.open;
  beforeEach(() => dynamoMock.reset());
  afterEach(() => {
    traceLogs.open = opened;
  });

  async function idv(argv: string[], env: Record<string, string>) {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env,
      cwd: process.cwd(),
    };
    return { code: await runCli(argv, io), stdout, stderr };
  }

  it('joins the item, the publication record and the log steps; says when the logs are missing', async () => {
    // Prepare
    dynamoMock.on(GetCommand, { Key: { resultId: 'r-1' } }).resolves({
      Item: {
        resultId: 'r-1',
        status: 'UNAVAILABLE',
        storedAt: '2026-08-10T12:00:10.000Z',
        source: 'poll',
      },
    });
    dynamoMock.on(GetCommand, { Key: { resultId: 'r-1#publication' } }).resolves({
      Item: { status: 'UNAVAILABLE', publishedAt: '2026-08-10T12:00:11.000Z' },
    });
    const { port } = fakeLogs([
      row({
        '@timestamp': '2026-08-10 12:00:09.000',
        message: 'service has no result for this resultId: recorded as UNAVAILABLE',
        source: 'poll',
      }),
    ]);
    traceLogs.open = async () => port;
    const env = { IDV_RESULTS_TABLE: 'results', AWS_REGION: 'eu-west-1' };

    // Act
    const withLogs = await idv(['results', 'trace', 'r-1', '--log-group', '/aws/lambda/fetch'], env);
    const withoutLogs = await idv(['results', 'trace', 'r-1'], env);

    // Assess
    expect(withLogs.code, withLogs.stderr).toBe(0);
    const trace = JSON.parse(withLogs.stdout);
    expect(trace.steps.map((step: { kind: string }) => step.kind)).toEqual([
      'announced',
      'fetch',
      'unavailable',
      'published',
    ]);
    expect(trace.missing).toBeUndefined();
    expect(JSON.parse(withoutLogs.stdout).missing).toEqual(['logs: pass --log-group or set IDV_LOG_GROUPS']);
  });
});

describe('replay marker', () => {
  it('re-announces a stored item with detail.replay, valid against the published schema', () => {
    // Prepare
    const item = buildStoredItem({
      hints: { resultId: 'r-1', source: 'poll', product: 'IDV_STANDARD' },
      document: { result: 'APPROVED', identity: { result: 'APPROVED' } },
      stored: { resultKey: 'results/r-1/result.json', objects: [], documentBytes: 10 },
      bucket: 'b',
      storedAt: '2026-08-10T12:00:05.000Z',
      retentionDays: 30,
    });

    // Act
    const { detailType, detail } = replayOfItem(
      item,
      { environment: 'staging', store: { table: 't', bucket: 'b' } },
      'idv-replay-2026-08-11T00-00-00-000Z',
    );

    // Assess
    expect(detailType).toBe(DETAIL_TYPES.resultStored);
    const validate = eventValidators()[DETAIL_TYPES.resultStored];
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
    expect(detail).toMatchObject({ resultId: 'r-1', replay: 'idv-replay-2026-08-11T00-00-00-000Z' });
    expect(isReplayed({ detail })).toBe(true);
    expect(isReplayed({ detail: { resultId: 'r-1' } })).toBe(false);
    expect(isReplayed({ detail: {}, 'replay-name': 'r' })).toBe(true);
    expect(validate(markReplay({ ...(detail as object) }, 'has space'))).toBe(false);
  });
});
