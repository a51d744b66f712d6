/**
 * Peak memory of the client under the hostile answers of issue 20, one child process per attack so each
 * figure is its own: `npx tsx test/support/hostile-memory.ts`. The double runs in this process; the child
 * makes one call (token, poll or the streamed result) and prints its peak RSS growth (maxRSS minus the
 * RSS after start-up) and how the call ended. Figures are published in docs/reliability.md.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { gzipOf } from '../../bench/support/hostile-bodies';
import {
  bombAnswer,
  floodAnswer,
  type HostileAnswer,
  startHostileService,
} from '../../bench/support/hostile-service';
import { fetchAccessToken } from '../../shared/client/oauth';
import { ResultsClient } from '../../shared/client/results-client';

const GiB = 1024 * 1024 * 1024;
const MB = 1_000_000;
type Call = 'token' | 'poll' | 'result';

async function child(call: Call, url: string): Promise<void> {
  const token = { accessToken: 'opaque', tokenType: 'Bearer', expiresAt: 8e15, scopes: [] };
  const client = new ResultsClient({
    baseUrl: url,
    environment: 'staging',
    tokenProvider: { getToken: async () => token, refresh: async () => token },
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    timeoutMs: 120_000,
  });
  const base = process.memoryUsage().rss;
  let outcome = 'completed';
  let bytes = 0;
  try {
    if (call === 'token') {
      await fetchAccessToken({ baseUrl: url, clientId: 'id', clientSecret: 'secret', scopes: ['s'] });
    } else if (call === 'poll') {
      await client.poll();
    } else {
      for await (const chunk of await client.getResultStream('r-1')) bytes += chunk.length;
    }
  } catch (error) {
    outcome = (error as Error).name;
  }
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    `${JSON.stringify({ outcome, bytes, rssGrowthMB: Math.round((peak - base) / MB) })}\n`,
  );
}

function runChild(call: Call, url: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'child', call, url], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    proc.on('error', reject);
    proc.on('close', () =>
      resolve(JSON.parse(out.trim().split('\n').pop() || '{}') as Record<string, unknown>),
    );
  });
}

async function main(): Promise<void> {
  const attacks: [string, Call, HostileAnswer][] = [
    ['token 200, 1 MB gzip bomb (1 GiB inflated)', 'token', bombAnswer(200, GiB)],
    ['poll 200, gzip bomb', 'poll', bombAnswer(200, GiB)],
    ['poll 500, gzip bomb', 'poll', bombAnswer(500, GiB)],
    ['poll 404, gzip bomb', 'poll', bombAnswer(404, GiB)],
    ['poll 500, 600 MB plain', 'poll', floodAnswer(500, 600 * MB)],
    ['poll 404, 600 MB plain', 'poll', floodAnswer(404, 600 * MB)],
    ['result 404, 600 MB plain', 'result', floodAnswer(404, 600 * MB)],
    ['result 200, gzip bomb read to the end', 'result', bombAnswer(200, GiB)],
  ];
  await gzipOf(bombAnswer(200, GiB).parts);
  const service = await startHostileService();
  try {
    for (const [label, call, answer] of attacks) {
      service.answer(answer);
      service.resetCounts();
      const figures = await runChild(call, service.url);
      const sent = Math.round(service.stats.bytesWritten / MB);
      process.stdout.write(
        `${label}: ${JSON.stringify(figures)}, ${service.stats.requests} request(s), ${sent} MB taken by the socket\n`,
      );
    }
  } finally {
    await service.close();
  }
}

if (process.argv[2] === 'child') await child(process.argv[3] as Call, process.argv[4] ?? '');
else await main();
