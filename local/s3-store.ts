/**
 * The local S3 emulator's files survive a kill (docs/local-run.md, "A crash loses nothing"). s3rver keeps
 * each object as `<key>._S3rver_object` with `._S3rver_object.md5` and `._S3rver_metadata.json` beside it,
 * written in place, one after the other: a SIGKILL between them left an empty metadata file, and from then
 * on every listing of the bucket answered 500 (and `npm start` failed). Two guards, without patching the
 * package:
 *
 * - {@link hardenS3Store}: the store's writes go to a temporary file that is flushed (fsync) and renamed
 *   over the old one (local/atomic-file.ts), the content first and its `.md5` dropped before the content
 *   is replaced, so a kill at any moment leaves the old object, or the new content with metadata that
 *   s3rver reads (missing metadata is empty; a missing `.md5` is computed again).
 * - {@link repairS3Directory}, at each start: what an older version or a crash left is repaired, and each
 *   repair named on one line: a metadata file that is empty or unparsable is rebuilt from the content
 *   (its type from its first bytes, its `sha256` computed), a torn `.md5` removed (recomputed on read),
 *   an upload whose own records are torn removed, and temporaries of a killed write removed.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  type Dirent,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { syncDirectory, writeFileAtomic } from './atomic-file';

const OBJECT = '._S3rver_object';
const MD5 = '._S3rver_object.md5';
const METADATA = '._S3rver_metadata.json';
/** A temporary file of this module: `<name>.<pid>.<random>.s3tmp`. */
const TEMPORARY = /\.\d+\.[0-9a-f]{8}\.s3tmp$/;

/** The parts of s3rver's FilesystemStore this module replaces. */
export interface FilesystemStore {
  getResourcePath(bucket: string, key?: string, resource?: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
  putContent(path: string, content: Buffer | NodeJS.ReadableStream): Promise<[number, string]>;
  putObject(object: {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  }): Promise<{ size: number; md5: string }>;
  initiateUpload(bucket: string, key: string, uploadId: string, metadata: object): Promise<void>;
  putPart(
    bucket: string,
    uploadId: string,
    partNumber: number,
    content: Buffer | NodeJS.ReadableStream,
  ): Promise<{ size: number; md5: string }>;
  getMetadata(bucket: string, key: string): Promise<Record<string, unknown>>;
  copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    replacementMetadata?: Record<string, string>,
  ): Promise<Record<string, unknown>>;
  putSubresource(
    bucket: string,
    key: string | undefined,
    resource: { type: string; toXML(indent: number): string },
  ): Promise<void>;
}

/** A new temporary path beside `path`. */
function temporaryOf(path: string): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.s3tmp`;
}

/** Streams or writes `content` into a new file at `path`, flushed; returns its size and MD5. */
async function writeContent(
  path: string,
  content: Buffer | NodeJS.ReadableStream,
): Promise<[number, string]> {
  const md5 = createHash('md5');
  let size = 0;
  const file = createWriteStream(path, { mode: 0o600, flush: true });
  if (Buffer.isBuffer(content)) {
    md5.update(content);
    size = content.length;
    await new Promise<void>((resolve, reject) => {
      file.once('error', reject);
      file.end(content, resolve);
    });
  } else {
    await pipeline(
      content,
      async function* (source) {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          md5.update(chunk);
          size += chunk.length;
          yield chunk;
        }
      },
      file,
    );
  }
  return [size, md5.digest('hex')];
}

/** Replaces the write methods of s3rver's store (`s3rver.store`) with atomic, durable ones. */
export function hardenS3Store(store: FilesystemStore): void {
  const ensureDir = (dir: string) => mkdir(dir, { recursive: true });
  store.putMetadata = async (bucket, key, metadata, md5) => {
    const json: Record<string, string> = {};
    for (const [name, value] of Object.entries(metadata)) {
      if (ALLOWED_METADATA.has(name) || name.startsWith('x-amz-meta-')) json[name] = value;
    }
    writeFileAtomic(store.getResourcePath(bucket, key, 'metadata.json'), JSON.stringify(json, null, 2));
    if (md5) writeFileAtomic(store.getResourcePath(bucket, key, 'object.md5'), md5);
  };
  store.putContent = async (path, content) => {
    const temporary = temporaryOf(path);
    try {
      const written = await writeContent(temporary, content);
      await rename(temporary, path);
      syncDirectory(dirname(path));
      return written;
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  };
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    await ensureDir(dirname(objectPath));
    const temporary = temporaryOf(objectPath);
    try {
      const [size, md5] = await writeContent(temporary, object.content);
      // The old checksum goes before the content changes: missing, it is computed again from the content.
      await rm(`${objectPath}.md5`, { force: true });
      await rename(temporary, objectPath);
      syncDirectory(dirname(objectPath));
      await store.putMetadata(object.bucket, object.key, object.metadata, md5);
      return { size, md5 };
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  };
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacementMetadata) => {
    const source = store.getResourcePath(srcBucket, srcKey, 'object');
    const target = store.getResourcePath(destBucket, destKey, 'object');
    if (source !== target) {
      await ensureDir(dirname(target));
      const temporary = temporaryOf(target);
      try {
        await copyFile(source, temporary);
        const fd = openSync(temporary, 'r+');
        try {
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        await rm(`${target}.md5`, { force: true });
        await rename(temporary, target);
        syncDirectory(dirname(target));
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    }
    if (replacementMetadata) await store.putMetadata(destBucket, destKey, replacementMetadata);
    else if (source !== target) {
      for (const resource of ['metadata.json', 'object.md5']) {
        const from = store.getResourcePath(srcBucket, srcKey, resource);
        if (existsSync(from))
          writeFileAtomic(store.getResourcePath(destBucket, destKey, resource), readFileSync(from));
      }
    }
    return store.getMetadata(destBucket, destKey);
  };
  store.initiateUpload = async (bucket, key, uploadId, metadata) => {
    const uploadDir = join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    await ensureDir(uploadDir);
    writeFileAtomic(join(uploadDir, 'key'), key);
    writeFileAtomic(join(uploadDir, 'metadata'), JSON.stringify(metadata));
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    await ensureDir(dirname(partPath));
    const [size, md5] = await store.putContent(partPath, content);
    writeFileAtomic(`${partPath}.md5`, md5);
    return { size, md5 };
  };
  store.putSubresource = async (bucket, key, resource) => {
    writeFileAtomic(store.getResourcePath(bucket, key, `${resource.type}.xml`), resource.toXML(2));
  };
}

/** The metadata s3rver keeps besides `x-amz-meta-*` (its `S3Object.ALLOWED_METADATA`). */
const ALLOWED_METADATA = new Set([
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'content-type',
  'expires',
  'x-amz-storage-class',
  'x-amz-website-redirect-location',
]);

/** A content type from an object's first bytes (or its key), for metadata rebuilt after a crash. */
function typeOf(path: string, head: Buffer): string {
  if (head[0] === 0xff && head[1] === 0xd8) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === '\x89PNG') return 'image/png';
  if (head.subarray(0, 4).toString('latin1') === '%PDF') return 'application/pdf';
  if (path.endsWith(`.json${OBJECT}`) || head.subarray(0, 1).toString() === '{') return 'application/json';
  return 'application/octet-stream';
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), async (source) => {
    for await (const chunk of source) hash.update(chunk as Buffer);
  });
  return hash.digest('hex');
}

function parses(path: string): boolean {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/** Every file under `dir`. */
function* filesUnder(dir: string): Generator<string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * Repairs what a crash (or an older version killed mid-write) left in the S3 emulator's `directory`;
 * returns one line per repair (none when all was whole), naming the file under `directory`.
 */
export async function repairS3Directory(directory: string): Promise<string[]> {
  if (!existsSync(directory)) return [];
  const lines: string[] = [];
  const name = (path: string) => relative(directory, path);
  for (const path of filesUnder(directory)) {
    if (TEMPORARY.test(path) || /\.\d+\.tmp$/.test(path)) {
      rmSync(path, { force: true });
      lines.push(`removed ${name(path)}: a write a crash interrupted`);
    } else if (path.endsWith(METADATA)) {
      const object = `${path.slice(0, -METADATA.length)}${OBJECT}`;
      if (!existsSync(object) || parses(path)) continue;
      const head = Buffer.alloc(8);
      const fd = openSync(object, 'r');
      try {
        readSync(fd, head, 0, 8, 0);
      } finally {
        closeSync(fd);
      }
      const metadata = { 'content-type': typeOf(object, head), 'x-amz-meta-sha256': await sha256Of(object) };
      writeFileAtomic(path, JSON.stringify(metadata, null, 2));
      lines.push(`rebuilt ${name(path)}: it was torn by a crash (type and checksum taken from the content)`);
    } else if (path.endsWith(MD5)) {
      if (/^[0-9a-f]{32}$/.test(readFileSync(path, 'utf8'))) continue;
      rmSync(path, { force: true });
      lines.push(`removed ${name(path)}: torn by a crash (computed again from the content)`);
    }
  }
  // Multipart uploads whose own records are torn cannot complete: they go (the writer retries).
  for (const bucket of existsSync(directory) ? readdirSync(directory) : []) {
    const uploads = join(directory, bucket, '._S3rver_uploads');
    if (!existsSync(uploads) || !statSync(uploads).isDirectory()) continue;
    for (const upload of readdirSync(uploads)) {
      const dir = join(uploads, upload);
      const metadata = join(dir, 'metadata');
      if (existsSync(join(dir, 'key')) && existsSync(metadata) && parses(metadata)) continue;
      await rm(dir, { recursive: true, force: true });
      lines.push(`removed ${name(dir)}: an upload a crash left unreadable`);
    }
  }
  return lines;
}
