/**
 * The store as the functions run it: bundled with `LAMBDA_BUNDLING` (its stand-in for the credential
 * chain included) and run in a plain
 * Node against the emulators. A stand-in that broke a request the functions make (a multipart upload, a
 * checksum, a small object) would fail here, where the unbundled tests load the real modules.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptionsFor } from '../../infra/bundling/bundle-size';
import { clientConfig } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(12 * 1024 * 1024)]);
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let local: LocalStore;
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'idv-bundled-store-'));
  bundle = path.join(dir, 'probe.mjs');
  await build(esbuildOptionsFor(path.join('test', 'support', 'bundled-store-probe.ts'), bundle));
  local = await startLocalStore('idv-bundled');
}, 60_000);

afterAll(async () => {
  await local?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the store bundled as the functions are', () => {
  it('stores a result with a multipart image through the bundled S3 client', async () => {
    // Prepare
    writeFileSync(path.join(dir, 'image.jpg'), JPEG);

    // Act
    const args = {
      s3: clientConfig(local.aws, 's3'),
      dynamo: clientConfig(local.aws, 'dynamodb'),
      bucket: local.resources.bucketName,
      table: local.resources.tableName,
      imageFile: path.join(dir, 'image.jpg'),
    };
    const { stdout } = await promisify(execFile)(process.execPath, [bundle, JSON.stringify(args)], {
      env: { PATH: process.env.PATH ?? '' },
      maxBuffer: 1024 * 1024,
    });
    const out = JSON.parse(stdout) as { objects: { key: string; sha256?: string }[] };

    // Assess: the image is in S3 byte for byte.
    expect(out.objects).toHaveLength(1);
    const got = await local.s3.send(
      new GetObjectCommand({ Bucket: local.resources.bucketName, Key: out.objects[0]!.key }),
    );
    expect(sha(await got.Body!.transformToByteArray())).toBe(sha(JPEG));
  }, 60_000);
});
