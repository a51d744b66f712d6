import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookEndpoint, type WebhookEndpoint } from '../../local/api-gateway';
import { lambdaContext } from '../../local/lambda-context';
import type { QueueMessage } from '../../shared/pipeline/messages';
import { handleWebhook, webhookRouteOf } from '../../shared/pipeline/webhook';

const SECRET = 'test-webhook-secret';

describe('local webhook endpoint in front of the webhook core', () => {
  const enqueued: QueueMessage[] = [];
  let endpoint: WebhookEndpoint;

  beforeAll(async () => {
    endpoint = await startWebhookEndpoint({
      handler: async (event) => {
        const { route, token } = webhookRouteOf(event);
        const response = await handleWebhook(
          { route, token, body: event.body, isBase64Encoded: event.isBase64Encoded },
          { secret: async () => SECRET, enqueue: async (message) => void enqueued.push(message) },
        );
        return { statusCode: response.statusCode, body: JSON.stringify(response.body) };
      },
      context: () => lambdaContext('webhook', 'eu-west-1'),
    });
  });
  afterAll(() => endpoint.close());

  const post = (path: string, body: string) =>
    fetch(`${endpoint.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  it('accepts a body between 64 KB and 256 KB, as the deployed stack does', async () => {
    // Prepare
    const body = JSON.stringify({ resultId: 'r-large', padding: 'x'.repeat(100 * 1024) });

    // Act
    const response = await post(`/webhooks/${SECRET}/result`, body);

    // Assess
    expect(response.status).toBe(202);
    expect(enqueued).toContainEqual({ resultId: 'r-large', source: 'webhook' });
  });

  it("leaves the 256 KB limit to the handler, with the handler's answer", async () => {
    // Prepare
    const body = JSON.stringify({ resultId: 'r-huge', padding: 'x'.repeat(300 * 1024) });

    // Act
    const response = await post(`/webhooks/${SECRET}/result`, body);

    // Assess
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: 'body must be at most 256 KB' });
  });

  it('answers 404, not 502, for a secret segment with a malformed escape', async () => {
    // Act
    const response = await post('/webhooks/%E0%A4%A/result', '{"resultId":"r-1"}');

    // Assess
    expect(response.status).toBe(404);
  });
});

describe('local webhook endpoint and strangers', () => {
  let endpoint: WebhookEndpoint;
  let invocations = 0;

  beforeAll(async () => {
    endpoint = await startWebhookEndpoint({
      pathSecret: SECRET,
      handler: async () => {
        invocations++;
        return { statusCode: 202, body: '{}' };
      },
      context: () => lambdaContext('webhook', 'eu-west-1'),
    });
  });
  afterAll(() => endpoint.close());

  /**
   * Sends the headers of a POST declaring `declared` bytes and then the body 64 KiB at a time, as long
   * as the server keeps the connection; resolves with the answer's status line, how many body bytes were
   * sent when it arrived, and whether the server closed the connection before the body was all sent.
   */
  function postSlowly(path: string, declared: number) {
    return new Promise<{ statusLine: string; sentAtAnswer: number; closedEarly: boolean }>(
      (resolve, reject) => {
        const { port } = endpoint;
        const socket = connect(port, '127.0.0.1');
        let sent = 0;
        let answer = '';
        let sentAtAnswer = -1;
        const piece = Buffer.alloc(64 * 1024, 0x61);
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error(`no answer after ${sent} body bytes`));
        }, 5000);
        const pump = (): void => {
          while (sent < declared && !socket.destroyed) {
            sent += piece.length;
            if (!socket.write(piece)) return void socket.once('drain', pump);
            // One piece at a time with a pause: the server has every chance to read it all.
            return void setTimeout(pump, 5);
          }
        };
        socket.on('connect', () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
          );
          pump();
        });
        socket.on('data', (chunk: Buffer) => {
          if (sentAtAnswer < 0) sentAtAnswer = sent;
          answer += chunk.toString();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve({ statusLine: answer.split('\r\n')[0]!, sentAtAnswer, closedEarly: sent < declared });
        });
      },
    );
  }

  it('answers a wrong secret before reading its body, and closes the connection', async () => {
    // Act: 9 MB declared (under the 10 MB limit), sent slowly.
    const outcome = await postSlowly('/webhooks/not-the-secret/result', 9 * 1024 * 1024);

    // Assess
    expect(outcome.statusLine).toBe('HTTP/1.1 404 Not Found');
    expect(outcome.sentAtAnswer).toBeLessThanOrEqual(256 * 1024);
    expect(outcome.closedEarly).toBe(true);
    expect(invocations).toBe(0);
  });

  it('answers an unknown route before reading its body', async () => {
    // Act
    const outcome = await postSlowly('/elsewhere', 9 * 1024 * 1024);

    // Assess
    expect(outcome.statusLine).toBe('HTTP/1.1 403 Forbidden');
    expect(outcome.sentAtAnswer).toBeLessThanOrEqual(256 * 1024);
    expect(outcome.closedEarly).toBe(true);
  });

  it('answers 413 at once when the right secret declares more than the limit', async () => {
    // Act
    const outcome = await postSlowly(`/webhooks/${SECRET}/result`, 11 * 1024 * 1024);

    // Assess
    expect(outcome.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(outcome.sentAtAnswer).toBeLessThanOrEqual(256 * 1024);
    expect(outcome.closedEarly).toBe(true);
    expect(invocations).toBe(0);
  });
});
