/**
 * The direct PutObject's own pieces (shared/store/direct-put.ts) against the SDK's: its SigV4 signature
 * against `@smithy/signature-v4` (the signer the SDK uses) over the same request, its HMAC against Node's,
 * its key encoding against the SDK's, and the reading of S3's error code.
 */
import { createHash, createHmac } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import {
  DirectPut,
  encodeKey,
  errorCode,
  HmacKey,
  requestHead,
  signV4,
  UnsendableRequestError,
} from '../../shared/store/direct-put';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The hash the SDK's S3 client signs with. */
const sdkSha256 = new S3Client({ region: 'eu-west-1' }).config.sha256;

/** The SDK's signature of the same PUT. */
async function sdkSignature(
  path: string,
  headers: Record<string, string>,
  payloadHash: string,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  date: Date,
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    credentials,
    region: 'eu-west-1',
    service: 's3',
    sha256: sdkSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: 'PUT',
      protocol: 'https:',
      hostname: headers['host']!,
      path,
      query: {},
      headers: { ...headers, 'x-amz-content-sha256': payloadHash },
    },
    { signingDate: date },
  );
  return signed.headers;
}

describe('the direct PutObject signs as the SDK signs', () => {
  const headers = {
    host: 'my-bucket.s3.eu-west-1.amazonaws.com',
    'content-type': 'image/jpeg',
    'content-length': '51200',
    'x-amz-meta-sha256': sha256Hex('image'),
    'x-amz-checksum-sha256': Buffer.from(sha256Hex('image'), 'hex').toString('base64'),
  };
  const path = `/${encodeKey('results/01J7Z3/images/0-front (1).jpg')}`;
  const date = new Date('2026-11-27T04:30:15.123Z');

  it.each([
    [
      'long-term keys',
      { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    ],
    [
      'a session (the Lambda role)',
      {
        accessKeyId: 'ASIAEXAMPLE',
        secretAccessKey: 'secret/with+signs',
        sessionToken: 'IQoJb3JpZ2luX2VjE///token==',
      },
    ],
  ])('with %s', async (_name, credentials) => {
    // Act
    const ours = signV4({
      method: 'PUT',
      path,
      headers,
      payloadHash: sha256Hex('image'),
      credentials,
      region: 'eu-west-1',
      service: 's3',
      date,
    });
    const sdk = await sdkSignature(path, headers, sha256Hex('image'), credentials, date);

    // Assess: the same authorization, date and token
    expect(ours['authorization']).toBe(sdk['authorization']);
    expect(ours['x-amz-date']).toBe('20261127T043015Z');
    expect(ours['x-amz-security-token']).toBe(sdk['x-amz-security-token']);
    expect(ours['authorization']).toContain(
      `Credential=${credentials.accessKeyId}/20261127/eu-west-1/s3/aws4_request`,
    );
  });

  it('and a day later with a new signing key (the cached one is for its day)', async () => {
    // Prepare
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
    const sign = (at: Date) =>
      signV4({
        method: 'PUT',
        path,
        headers,
        payloadHash: 'a'.repeat(64),
        credentials,
        region: 'eu-west-1',
        service: 's3',
        date: at,
      });

    // Act
    sign(date);
    const nextDay = new Date('2026-11-28T00:00:01Z');
    const ours = sign(nextDay);

    // Assess
    const sdk = await sdkSignature(path, headers, 'a'.repeat(64), credentials, nextDay);
    expect(ours['authorization']).toBe(sdk['authorization']);
  });

  it('with a key rotated within the day (the cache is per secret)', async () => {
    // Prepare
    const first = { accessKeyId: 'AKIDONE', secretAccessKey: 'first-secret' };
    const second = { accessKeyId: 'AKIDTWO', secretAccessKey: 'second-secret' };
    const sign = (credentials: typeof first) =>
      signV4({
        method: 'PUT',
        path,
        headers,
        payloadHash: 'b'.repeat(64),
        credentials,
        region: 'eu-west-1',
        service: 's3',
        date,
      });

    // Act
    sign(first);
    const ours = sign(second);

    // Assess
    expect(ours['authorization']).toBe(
      (await sdkSignature(path, headers, 'b'.repeat(64), second, date))['authorization'],
    );
  });
});

describe('HmacKey', () => {
  it('gives the HMAC-SHA256 Node gives, for keys up to the block size', () => {
    for (const length of [0, 1, 32, 63, 64]) {
      const key = Buffer.alloc(length, 7 + length);
      for (const message of ['', 'AWS4-HMAC-SHA256\n20261127T043015Z', 'é'.repeat(100)]) {
        expect(new HmacKey(key).sign(message)).toBe(createHmac('sha256', key).update(message).digest('hex'));
      }
    }
  });

  it('refuses a key longer than the block rather than sign wrong', () => {
    expect(() => new HmacKey(Buffer.alloc(65))).toThrow(/longer than the SHA-256 block/);
  });
});

describe('encodeKey', () => {
  it('encodes each segment as the SDK does and keeps the slashes', async () => {
    // Prepare: the path the SDK serialises for the same key
    const key = "results/a b/c+d/e(1)!'*~.jpg";
    const s3 = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    let sdkPath = '';
    s3.middlewareStack.add(
      () => async (args) => {
        sdkPath = (args.request as { path: string }).path;
        return { output: { $metadata: {} }, response: {} };
      },
      { step: 'finalizeRequest', priority: 'low' },
    );

    // Act
    await s3.send(new PutObjectCommand({ Bucket: 'my-bucket', Key: key, Body: 'x' }));

    // Assess
    expect(`/${encodeKey(key)}`).toBe(sdkPath);
  });
});

describe('requestHead', () => {
  it('writes the request line and each header on its own line, ending in an empty line', () => {
    // Act
    const head = requestHead('/bucket/results/r1/images/01.jpg', { host: 'h', 'content-length': '3' });

    // Assess
    expect(head).toBe(
      'PUT /bucket/results/r1/images/01.jpg HTTP/1.1\r\nhost: h\r\ncontent-length: 3\r\n\r\n',
    );
  });

  it.each([
    [
      'a header value with CR LF',
      '/b/k',
      { 'content-type': 'image/jpeg\r\nx-evil: 1' },
      'the content-type header',
    ],
    [
      'a header value with a NUL',
      '/b/k',
      { 'x-amz-meta-sha256': 'a\u0000b' },
      'the x-amz-meta-sha256 header',
    ],
    ['a header value beyond ASCII', '/b/k', { 'content-type': 'image/jpég' }, 'the content-type header'],
    ['a path with a space', '/b/a b', {}, 'the path'],
    ['a path with CR LF', '/b/k\r\nx: 1', {}, 'the path'],
    ['a path not starting with /', 'b/k', {}, 'the path'],
  ])('refuses %s rather than send a line it did not mean', (_case, path, headers, what) => {
    // Act
    const build = () => requestHead(path, headers);

    // Assess
    expect(build).toThrow(UnsendableRequestError);
    expect(build).toThrow(`PutObject: ${what} holds a character HTTP cannot carry`);
  });
});

describe('errorCode', () => {
  it("reads S3's code and nothing that is not one plain word", () => {
    expect(errorCode('<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>x</Message></Error>')).toBe(
      'SlowDown',
    );
    expect(errorCode('<Error><Code>Jan de Vries</Code></Error>')).toBeUndefined();
    expect(errorCode(`<Error><Code>${'A'.repeat(65)}</Code></Error>`)).toBeUndefined();
    expect(errorCode('not xml at all')).toBeUndefined();
  });
});

describe('DirectPut.route', () => {
  const client = (config: ConstructorParameters<typeof S3Client>[0]) =>
    new S3Client({ credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, ...config });

  it('follows the client’s endpoint rules: virtual-hosted, path style for dotted names, FIPS, a custom endpoint', async () => {
    expect(await new DirectPut(client({ region: 'eu-west-1' }), 'my-bucket').route()).toMatchObject({
      protocol: 'https:',
      host: 'my-bucket.s3.eu-west-1.amazonaws.com',
      basePath: '',
      signingRegion: 'eu-west-1',
      signingName: 's3',
    });
    expect(await new DirectPut(client({ region: 'eu-west-1' }), 'my.dotted.bucket').route()).toMatchObject({
      host: 's3.eu-west-1.amazonaws.com',
      basePath: '/my.dotted.bucket',
    });
    expect(
      await new DirectPut(client({ region: 'eu-west-1', useFipsEndpoint: true }), 'my-bucket').route(),
    ).toMatchObject({ host: 'my-bucket.s3-fips.eu-west-1.amazonaws.com' });
    expect(
      await new DirectPut(
        client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:4566', forcePathStyle: true }),
        'local-bucket',
      ).route(),
    ).toMatchObject({
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 4566,
      host: '127.0.0.1:4566',
      basePath: '/local-bucket',
    });
  });

  it('leaves an S3 Express directory bucket to the SDK (its sessions are not SigV4 as signed here)', async () => {
    const route = await new DirectPut(client({ region: 'eu-west-1' }), 'my-bucket--euw1-az1--x-s3').route();
    expect(route).toBeUndefined();
  });
});
