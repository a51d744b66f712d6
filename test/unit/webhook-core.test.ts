import { describe, expect, it, vi } from 'vitest';
import { RESULT_ID_RULE } from '../../shared/api/result-id';
import type { QueueMessage } from '../../shared/pipeline/messages';
import {
  handleWebhook,
  MAX_WEBHOOK_BODY_BYTES,
  secretsEqual,
  type WebhookRequest,
  webhookRouteOf,
} from '../../shared/pipeline/webhook';

const SECRET = 'A'.repeat(40);

function run(request: Partial<WebhookRequest>) {
  const enqueued: QueueMessage[] = [];
  const deps = {
    secret: vi.fn(async () => SECRET),
    enqueue: vi.fn(async (m: QueueMessage) => {
      enqueued.push(m);
    }),
    now: () => new Date('2026-08-11T08:00:00.000Z'),
  };
  const response = handleWebhook(
    { route: 'result', token: SECRET, body: '{}', isBase64Encoded: false, ...request },
    deps,
  );
  return { response, enqueued };
}

describe('webhook core', () => {
  it.each([
    [{ resultId: 'abc-123' }],
    [{ result_id: 'abc-123' }],
    [{ data: { resultId: 'abc-123' } }],
    [{ payload: { result_id: 'abc-123' } }],
    [{ result: { id: 'abc-123' } }],
  ])('finds the resultId in %j and answers 202', async (body) => {
    // Act
    const { response, enqueued } = run({ body: JSON.stringify(body) });

    // Assess
    expect(await response).toEqual({ statusCode: 202, body: { accepted: true, resultId: 'abc-123' } });
    expect(enqueued).toEqual([{ resultId: 'abc-123', source: 'webhook' }]);
  });

  it.each([
    [{ resultId: 'res.2026:0001' }, 'res.2026:0001'],
    [{ resultId: 'R~42' }, 'R~42'],
    [{ data: { resultId: 'acct@eu+7=' } }, 'acct@eu+7='],
    [{ resultId: 'x'.repeat(256) }, 'x'.repeat(256)],
    [{ resultId: 90817 }, '90817'],
  ])('accepts the resultId of another implementation in %j as %s', async (body, resultId) => {
    // Act
    const { response, enqueued } = run({ body: JSON.stringify(body) });

    // Assess
    expect((await response).statusCode).toBe(202);
    expect(enqueued).toEqual([{ resultId, source: 'webhook' }]);
  });

  it('accepts an upload transactionId with dots and colons, or a number', async () => {
    // Act
    const dotted = run({ route: 'upload', body: JSON.stringify({ transactionId: 'tx.2026:0001' }) });
    const numeric = run({ route: 'upload', body: JSON.stringify({ transactionId: 4711 }) });

    // Assess
    expect((await dotted.response).statusCode).toBe(202);
    expect((await numeric.response).statusCode).toBe(202);
    expect(
      [...dotted.enqueued, ...numeric.enqueued].map((m) => (m as { transactionId: string }).transactionId),
    ).toEqual(['tx.2026:0001', '4711']);
  });

  it('takes the resultId alone (every other field of the body is a hint) and decodes a base64 body', async () => {
    // Prepare
    const body = JSON.stringify({ resultId: 'r1', transactionId: 'tx-1', product: 'IDV_LITE', userId: 42 });

    // Act
    const { response, enqueued } = run({ body: Buffer.from(body).toString('base64'), isBase64Encoded: true });

    // Assess
    expect((await response).statusCode).toBe(202);
    expect(enqueued).toEqual([{ resultId: 'r1', source: 'webhook' }]);
  });

  it.each([
    ['not json', 400, 'body is not valid JSON'],
    ['[1,2]', 400, 'body must be a JSON object'],
    ['', 400, 'body is empty: expected a JSON object'],
    ['{"other":1}', 400, 'resultId is missing from the body'],
    ['{"resultId":"../../etc"}', 400, `resultId is malformed: it ${RESULT_ID_RULE}`],
    ['{"resultId":"a b"}', 400, `resultId is malformed: it ${RESULT_ID_RULE}`],
    ['{"resultId":".hidden"}', 400, `resultId is malformed: it ${RESULT_ID_RULE}`],
    ['{"resultId":1.5e300}', 400, `resultId is malformed: it ${RESULT_ID_RULE}`],
    [`{"resultId":"${'a'.repeat(257)}"}`, 400, `resultId is malformed: it ${RESULT_ID_RULE}`],
    [`{"pad":"${'x'.repeat(MAX_WEBHOOK_BODY_BYTES)}"}`, 413, 'body must be at most 256 KB'],
  ])('answers %s with %i naming the problem and enqueues nothing', async (body, status, problem) => {
    // Act
    const { response, enqueued } = run({ body });

    // Assess
    expect(await response).toEqual({ statusCode: status, body: { message: problem } });
    expect(enqueued).toEqual([]);
  });

  it.each([false, true])(
    'limits the decoded body to exactly 256 KB (base64: %s)',
    async (isBase64Encoded) => {
      // Prepare: bodies of exactly the limit and one byte over it, multi-byte characters included.
      const body = (bytes: number) => {
        const head = '{"resultId":"r1","note":"é';
        const json = `${head}${'x'.repeat(bytes - Buffer.byteLength(head) - 2)}"}`;
        return isBase64Encoded ? Buffer.from(json).toString('base64') : json;
      };

      // Act
      const atLimit = run({ body: body(MAX_WEBHOOK_BODY_BYTES), isBase64Encoded });
      const over = run({ body: body(MAX_WEBHOOK_BODY_BYTES + 1), isBase64Encoded });

      // Assess
      expect((await atLimit.response).statusCode).toBe(202);
      expect(atLimit.enqueued).toEqual([{ resultId: 'r1', source: 'webhook' }]);
      expect((await over.response).statusCode).toBe(413);
      expect(over.enqueued).toEqual([]);
    },
  );

  it('answers 404 and nothing else to a wrong or missing secret', async () => {
    // Act
    const wrong = run({ token: 'B'.repeat(40), body: '{"resultId":"r1"}' });
    const missing = run({ token: undefined, body: '{"resultId":"r1"}' });

    // Assess
    expect(await wrong.response).toEqual({ statusCode: 404, body: { message: 'Not Found' } });
    expect(await missing.response).toEqual({ statusCode: 404, body: { message: 'Not Found' } });
    expect([...wrong.enqueued, ...missing.enqueued]).toEqual([]);
  });

  it('turns an upload webhook into an upload message', async () => {
    // Act
    const { response, enqueued } = run({
      route: 'upload',
      body: JSON.stringify({ data: { transactionId: 'tx-7', secureId: 'sec-7' } }),
    });

    // Assess
    expect(await response).toEqual({ statusCode: 202, body: { accepted: true, transactionId: 'tx-7' } });
    expect(enqueued).toEqual([
      { kind: 'upload', transactionId: 'tx-7', secureId: 'sec-7', uploadedAt: '2026-08-11T08:00:00.000Z' },
    ]);
  });

  it('compares secrets exactly', () => {
    // Assess
    expect(secretsEqual(SECRET, SECRET)).toBe(true);
    expect(secretsEqual(SECRET, `${SECRET}x`)).toBe(false);
    expect(secretsEqual(SECRET, '')).toBe(false);
  });

  it('reads route and token from the proxy event', () => {
    // Assess
    expect(
      webhookRouteOf({
        resource: '/webhooks/{token}/result',
        path: '/webhooks/s3cr3t/result',
        pathParameters: { token: 's3cr3t' },
      }),
    ).toEqual({ route: 'result', token: 's3cr3t' });
    expect(webhookRouteOf({ path: '/prod/webhooks/abc/upload' })).toEqual({ route: 'upload', token: 'abc' });
    expect(webhookRouteOf({ path: '/webhooks/abc/other' })).toEqual({});
  });
});
