/**
 * Benchmark child of the size bench (`bench/sizes.ts`): **only** the fetch-result handler, bundled exactly
 * as CDK bundles it (`infra/bundling/bundle-size.ts`) and run by plain Node, so its memory is the
 * deployed code's. Requests (IPC):
 *
 * - `{ type: 'handle', resultId }`: one SQS event with one poll message, handed to the handler;
 * - `{ type: 'raw', url, bucket, key }`: the raw-copy baseline — GET `url` and stream it into one
 *   PutObject (`content-length` from the answer), nothing parsed, decoded or hashed;
 * - `{ type: 'naive', url, resultId, bucket, table, eventBus }`: the naive peer of the cost comparison
 *   (`naive-peer.ts`: whole body buffered, `JSON.parse`, one PutObject per image);
 * - `{ type: 'floor', url, bucket, key, spans, imageBytes }`: the floor of the handler's work — GET the
 *   same body, decode each image's base64 (`spans`, from `stream-layout.ts`) with Node's decoder and no
 *   check, SHA-256 it and write it with the pipeline's own PutObject (`S3BlobTarget.putSmall`, 4 at once):
 *   what any implementation must spend; nothing parsed, checked or recorded.
 *
 * Each answer carries the wall time, the process CPU time and the kernel's peak RSS (VmHWM) of that
 * request: the peak is reset (`/proc/self/clear_refs`, 5) just before it starts, so `hwm - rssBefore`
 * is the growth the request caused, garbage included, exactly as Lambda's "Max Memory Used" sees it;
 * and the bytes the request wrote to stdout (the function's log lines and metrics, what CloudWatch Logs
 * ingests). With `BENCH_XRAY_TRACED=1` each handled result gets a fresh sampled trace header, as the
 * Lambda runtime sets it (`bench/support/cost-section.ts` runs the tracing A/B this way).
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { handler } from '../../functions/fetch-result/handler';
import { lambdaContext } from '../../local/lambda-context';
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
} from '../../shared/aws-clients';
import { serveParent } from './child';
import { floor } from './floor';
import { naiveFetchAndStore } from './naive-peer';
import { newTraceHeader } from './trace-header';

/** Memory and time of one request. */
export interface Measured {
  type: 'measured';
  ms: number;
  cpuMs: number;
  /** RSS just before the request (bytes). */
  rssBefore: number;
  /** Kernel peak RSS during the request (bytes). */
  hwm: number;
  failed: number;
  bytes?: number;
  /** Bytes written to stdout during the request (log lines, metrics). */
  logBytes: number;
}

// Counts what the function logs (stdout is not kept: the parent ignores it).
let stdoutBytes = 0;
const writeStdout = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
  stdoutBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
  return writeStdout(chunk, ...rest);
}) as typeof process.stdout.write;

function status(field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN) * 1024;
}

async function measure(work: () => Promise<{ failed: number; bytes?: number }>): Promise<Measured> {
  const logStart = stdoutBytes;
  // Resets the peak to the current RSS (Linux >= 4.0); without it VmHWM would keep an older peak.
  writeFileSync('/proc/self/clear_refs', '5');
  const rssBefore = status('VmRSS');
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcome = await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    type: 'measured',
    ms,
    cpuMs: (used.user + used.system) / 1000,
    rssBefore,
    hwm: status('VmHWM'),
    logBytes: stdoutBytes - logStart,
    ...outcome,
  };
}

function sqsEvent(resultId: string): SQSEvent {
  const now = String(Date.now());
  return {
    Records: [
      {
        messageId: `bench-${resultId}`,
        receiptHandle: `bench-${resultId}`,
        // Hints as the poll sends them, so the item has the keys of all three indexes.
        body: JSON.stringify({
          resultId,
          source: 'poll',
          transactionId: `tx-${resultId}`,
          customerReference: 'bench',
          completed: new Date().toISOString(),
        }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: now,
          SenderId: 'bench',
          ApproximateFirstReceiveTimestamp: now,
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:bench',
        awsRegion: process.env.AWS_REGION ?? 'eu-west-1',
      },
    ],
  };
}

/**
 * `BENCH_SIZE_PROFILE_DIR`: a CPU profile of each handled result alone (not of the raw copy, floor or naive
 * peer beside it in the same process), written there as `<resultId>.cpuprofile`, and its garbage
 * collections by kind (count, ms) as `<resultId>.gc.json`.
 */
async function startProfile() {
  const dir = process.env.BENCH_SIZE_PROFILE_DIR;
  if (!dir) return undefined;
  const cpu = process.env.BENCH_SIZE_PROFILE !== 'gc';
  const session = new Session();
  session.connect();
  if (cpu) {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  // And the collections in that time, by kind: count and milliseconds.
  const gc: Record<string, { count: number; ms: number }> = {};
  const kinds: Record<number, string> = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[(entry as unknown as { detail: { kind: number } }).detail.kind] ?? 'other';
      gc[kind] ??= { count: 0, ms: 0 };
      gc[kind].count++;
      gc[kind].ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    async stop(name: string) {
      if (cpu) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      }
      session.disconnect();
      await new Promise((resolve) => setImmediate(resolve));
      observer.disconnect();
      writeFileSync(join(dir, `${name}.gc.json`), JSON.stringify(gc));
    },
  };
}

/** The floor's clients: built as the handler builds its own (its PutObject sets its own checksum). */
const floorS3 = createS3Client({ s3ForcePathStyle: true });
const floorDynamo = createDynamoDocumentClient();
const floorEvents = createEventBridgeClient();

// The raw copy sends no checksum trailer (aws-chunked), which the emulator would not take for a stream.
const s3 = new S3Client({ forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' });
const naiveClients = {
  s3: new S3Client({ forcePathStyle: true }),
  dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({})),
  events: new EventBridgeClient({}),
};

await serveParent(
  async () => ({ rss: status('VmRSS') }),
  async (message) => {
    if (message.type === 'handle') {
      const resultId = String(message.resultId);
      // What the Lambda runtime does per invocation when the function is traced.
      if (process.env.BENCH_XRAY_TRACED === '1') process.env._X_AMZN_TRACE_ID = newTraceHeader();
      const profiled = await startProfile();
      const answer = await measure(async () => {
        const context = lambdaContext('bench-fetch-result', process.env.AWS_REGION ?? 'eu-west-1', 900_000);
        const response = await handler(sqsEvent(resultId), context);
        return { failed: response.batchItemFailures.length };
      });
      await profiled?.stop(resultId);
      return answer as unknown as Record<string, unknown>;
    }
    if (message.type === 'raw') {
      return (await measure(async () => {
        const answer = await fetch(String(message.url));
        if (!answer.ok || !answer.body) throw new Error(`raw GET answered ${answer.status}`);
        const bytes = Number(answer.headers.get('content-length'));
        await s3.send(
          new PutObjectCommand({
            Bucket: String(message.bucket),
            Key: String(message.key),
            Body: Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream),
            ContentLength: bytes,
          }),
        );
        return { failed: 0, bytes };
      })) as unknown as Record<string, unknown>;
    }
    if (message.type === 'naive') {
      return (await measure(async () => {
        const stored = await naiveFetchAndStore(
          {
            url: String(message.url),
            resultId: String(message.resultId),
            bucket: String(message.bucket),
            table: String(message.table),
            eventBus: String(message.eventBus),
          },
          naiveClients,
        );
        return { failed: 0, bytes: stored.bytes };
      })) as unknown as Record<string, unknown>;
    }
    if (message.type === 'floor') {
      return (await measure(async () => {
        const bytes = await floor(
          floorS3,
          String(message.url),
          String(message.bucket),
          String(message.key),
          message.spans as [number, number][],
          Number(message.imageBytes),
          {
            dynamo: floorDynamo,
            events: floorEvents,
            table: String(message.table),
            eventBus: String(message.eventBus),
            resultId: String(message.resultId),
          },
        );
        return { failed: 0, bytes };
      })) as unknown as Record<string, unknown>;
    }
    if (message.type === 'exit') {
      // A normal exit, so Node flags like --cpu-prof write their files.
      setImmediate(() => process.exit(0));
      return { type: 'exiting' };
    }
    throw new Error(`unknown request ${String(message.type)}`);
  },
);
