/**
 * The local emulators' signature check (local/aws-auth.ts) against requests signed by the SDK's own
 * signer (`@smithy/signature-v4`), with its signing keys cached per key pair and scope.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { type RunCredentials, readSignedRequest, signatureMatches } from '../../local/aws-auth';

const body = '{"TableName":"results","Key":{"resultId":{"S":"r-1"}}}';
const bodyHash = createHash('sha256').update(body).digest('hex');
/** The hash the SDK's DynamoDB client signs with. */
const sdkSha256 = new DynamoDBClient({ region: 'us-east-1' }).config.sha256;

/** A DynamoDB request as the SDK signs it for `region`, seen as the front sees it. */
async function sdkSigned(credentials: RunCredentials, region = 'us-east-1'): Promise<IncomingMessage> {
  const signer = new SignatureV4({ credentials, region, service: 'dynamodb', sha256: sdkSha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: '127.0.0.1',
    port: 8000,
    path: '/',
    query: {},
    headers: {
      host: '127.0.0.1:8000',
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.GetItem',
    },
    body,
  });
  const headers = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { method: 'POST', url: '/', headers } as unknown as IncomingMessage;
}

/** What the front decides for `req` under `credentials` and the body's hash. */
function accepted(req: IncomingMessage, credentials: RunCredentials, payloadHash = bodyHash): boolean {
  const signed = readSignedRequest(req, credentials);
  return signed !== undefined && signatureMatches(req, signed, credentials, payloadHash);
}

describe('the local signature check', () => {
  const run: RunCredentials = { accessKeyId: 'LOCALKEY', secretAccessKey: 'the-run-secret' };

  it('accepts the SDK`s signature, again with the cached signing key', async () => {
    // Prepare
    const first = await sdkSigned(run);
    const second = await sdkSigned(run);

    // Act, Assess
    expect(accepted(first, run)).toBe(true);
    expect(accepted(second, run)).toBe(true);
  });

  it('refuses another body, and another secret behind the same key id after a cached success', async () => {
    // Prepare: a key pair with this run's key id but another secret, the scope's key cached for the run
    const other: RunCredentials = { accessKeyId: 'LOCALKEY', secretAccessKey: 'another-secret' };
    const req = await sdkSigned(run);
    expect(accepted(req, run)).toBe(true);

    // Act, Assess
    expect(accepted(req, run, createHash('sha256').update(`${body} `).digest('hex'))).toBe(false);
    expect(accepted(req, other)).toBe(false);
    expect(accepted(await sdkSigned(other), run)).toBe(false);
  });

  it('derives each scope`s key, past the bound of the cache', async () => {
    // Prepare: 40 regions, more than the 32 keys kept per key pair
    const requests = await Promise.all(Array.from({ length: 40 }, (_, i) => sdkSigned(run, `region-${i}`)));

    // Act
    const verdicts = [...requests, ...requests].map((req) => accepted(req, run));

    // Assess
    expect(verdicts).toEqual(verdicts.map(() => true));
  });
});
