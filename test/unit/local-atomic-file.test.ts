/**
 * The local run's one way of replacing a file (local/atomic-file.ts) and the start's repairs of what a
 * crash left in the S3 emulator's files and the journals (local/s3-store.ts): owner-only whatever the
 * umask, the old file kept when it changed meanwhile, a torn journal line sealed, torn metadata rebuilt
 * from the content, a torn checksum and a torn upload removed, temporaries of a killed write removed.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sealTornLine, writeFileAtomic } from '../../local/atomic-file';
import { repairS3Directory } from '../../local/s3-store';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'idv-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces a file owner-only whatever the umask, leaving no temporary', () => {
    // Prepare
    const file = join(dir, 'stack.json');
    writeFileSync(file, 'old');
    const umask = process.umask(0o022);

    // Act
    try {
      writeFileAtomic(file, 'new');
    } finally {
      process.umask(umask);
    }

    // Assess
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.${process.pid}.tmp`)).toBe(false);
  });

  it('keeps the old file when it changed while the new one was written', () => {
    // Prepare
    const file = join(dir, 'queue-journal.jsonl');
    writeFileSync(file, 'a\n');

    // Act
    const replaced = writeFileAtomic(file, '', { changed: () => true });

    // Assess
    expect(replaced).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('a\n');
    expect(existsSync(`${file}.${process.pid}.tmp`)).toBe(false);
  });
});

describe('sealTornLine', () => {
  it('ends a journal whose last line was torn, and leaves whole or empty ones alone', () => {
    // Prepare
    const torn = join(dir, 'events.jsonl');
    const whole = join(dir, 'trace.jsonl');
    writeFileSync(torn, '{"a":1}\n{"b":');
    writeFileSync(whole, '{"a":1}\n');

    // Act
    const sealed = [sealTornLine(torn), sealTornLine(whole), sealTornLine(join(dir, 'missing.jsonl'))];

    // Assess
    expect(sealed).toEqual([true, false, false]);
    expect(readFileSync(torn, 'utf8')).toBe('{"a":1}\n{"b":\n');
    expect(readFileSync(whole, 'utf8')).toBe('{"a":1}\n');
  });
});

describe('repairS3Directory', () => {
  it('rebuilds torn metadata from the content, removes a torn checksum, a torn upload and temporaries', async () => {
    // Prepare: the files s3rver keeps for two objects, and what kills left.
    const results = join(dir, 'bucket', 'results', 'r-1');
    mkdirSync(results, { recursive: true });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    writeFileSync(join(results, 'images-01._S3rver_object'), jpeg);
    writeFileSync(join(results, 'images-01._S3rver_metadata.json'), '');
    writeFileSync(join(results, 'result.json._S3rver_object'), '{"x":1}');
    writeFileSync(join(results, 'result.json._S3rver_metadata.json'), '{"content-type":"application/json"}');
    writeFileSync(join(results, 'result.json._S3rver_object.md5'), 'abc');
    writeFileSync(join(results, 'result.json._S3rver_object.123.0a1b2c3d.s3tmp'), 'partial');
    const upload = join(dir, 'bucket', '._S3rver_uploads', 'u-1');
    mkdirSync(upload, { recursive: true });
    writeFileSync(join(upload, 'key'), 'staging/r-1/files-01');
    writeFileSync(join(upload, 'metadata'), '{"content-ty');

    // Act
    const lines = await repairS3Directory(dir);
    const again = await repairS3Directory(dir);

    // Assess
    expect(lines).toHaveLength(4);
    expect(lines.join('\n')).toMatch(/rebuilt bucket\/results\/r-1\/images-01\._S3rver_metadata\.json/);
    expect(JSON.parse(readFileSync(join(results, 'images-01._S3rver_metadata.json'), 'utf8'))).toEqual({
      'content-type': 'image/jpeg',
      'x-amz-meta-sha256': createHash('sha256').update(jpeg).digest('hex'),
    });
    expect(existsSync(join(results, 'result.json._S3rver_object.md5'))).toBe(false);
    expect(existsSync(join(results, 'result.json._S3rver_object.123.0a1b2c3d.s3tmp'))).toBe(false);
    expect(existsSync(upload)).toBe(false);
    expect(readFileSync(join(results, 'result.json._S3rver_metadata.json'), 'utf8')).toBe(
      '{"content-type":"application/json"}',
    );
    expect(again).toEqual([]);
  });
});
