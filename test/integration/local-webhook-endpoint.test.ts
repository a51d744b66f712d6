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
