import { describe, expect, it } from 'vitest';
import { toApiGatewayEvent } from '../../local/api-gateway';

const base = { headers: {}, sourceIp: '127.0.0.1' };

describe('toApiGatewayEvent', () => {
  it('maps a result webhook POST to the proxy event of the /webhooks/{token}/result resource', () => {
    // Prepare
    const body = Buffer.from('{"resultId":"r-1"}');

    // Act
    const event = toApiGatewayEvent({
      ...base,
      method: 'POST',
      url: '/webhooks/abc123/result?x=1',
      headers: { 'content-type': 'application/json', 'user-agent': 'sim' },
      body,
    });

    // Assess
    expect(event).toMatchObject({
      resource: '/webhooks/{token}/result',
      path: '/webhooks/abc123/result',
      httpMethod: 'POST',
      pathParameters: { token: 'abc123' },
      queryStringParameters: { x: '1' },
      headers: { 'content-type': 'application/json', 'user-agent': 'sim' },
      body: '{"resultId":"r-1"}',
      isBase64Encoded: false,
      requestContext: { resourcePath: '/webhooks/{token}/result', httpMethod: 'POST', stage: 'local' },
    });
  });

  it('maps the upload route and base64-encodes a binary body', () => {
    // Act
    const event = toApiGatewayEvent({
      ...base,
      method: 'POST',
      url: '/webhooks/t/upload',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from([0, 1, 2]),
    });

    // Assess
    expect(event?.resource).toBe('/webhooks/{token}/upload');
    expect(event?.isBase64Encoded).toBe(true);
    expect(event?.body).toBe('AAEC');
  });

  it('gives a null body and no query parameters for an empty request', () => {
    // Act
    const event = toApiGatewayEvent({
      ...base,
      method: 'POST',
      url: '/webhooks/t/result',
      body: Buffer.alloc(0),
    });

    // Assess
    expect(event?.body).toBeNull();
    expect(event?.queryStringParameters).toBeNull();
  });

  it.each([
    ['GET', '/webhooks/t/result'],
    ['POST', '/webhooks/t/other'],
    ['POST', '/webhooks/result'],
    ['POST', '/'],
  ])('matches no route for %s %s', (method, url) => {
    // Act
    const event = toApiGatewayEvent({ ...base, method, url, body: Buffer.alloc(0) });

    // Assess
    expect(event).toBeUndefined();
  });
});
