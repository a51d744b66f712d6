/**
 * Child process of test/integration/client-deadline-gc.test.ts, run with `--expose-gc`: reads a streamed
 * result from `url` under a deadline `deadlineMs` from now while a GC runs every 200 ms, and prints one
 * JSON line: how the read ended, when, and how many bytes came. A GC is what made Node 20 lose the abort
 * of a body stream. With `unreadMs` it first leaves the opened body unread that long (as fetch-result does
 * while it claims the publication), so the GCs in between meet a body nobody reads yet.
 */
import { ResultsClient } from '../../shared/client/results-client';

const [url = '', deadlineText = '2000', unreadText = '0'] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const collect = setInterval(gc, 200);
const token = { accessToken: 'opaque-test-token', tokenType: 'Bearer', expiresAt: 8e15, scopes: [] };
const client = new ResultsClient({
  baseUrl: url,
  environment: 'staging',
  tokenProvider: { getToken: async () => token, refresh: async () => token },
  // Longer than the drip's gap and than the deadline: only the deadline can end this read.
  timeoutMs: 60_000,
});
const started = Date.now();
let bytes = 0;
let outcome: Record<string, unknown>;
try {
  const stream = await client.getResultStream('r-drip', { deadlineMs: started + Number(deadlineText) });
  await new Promise((resolve) => setTimeout(resolve, Number(unreadText)));
  for await (const chunk of stream) bytes += chunk.length;
  outcome = { name: 'completed' };
} catch (error) {
  outcome = { name: (error as Error).name, timedOut: (error as { timedOut?: unknown }).timedOut };
}
clearInterval(collect);
process.stdout.write(
  `${JSON.stringify({ ...outcome, bytes, elapsedMs: Date.now() - started, node: process.version })}\n`,
);
