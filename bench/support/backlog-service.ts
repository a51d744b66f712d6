/**
 * Benchmark child: the service simulator of the backlog bench, in a process of its own so its result
 * store (10,000 finished transactions) and its CPU do not count towards the handlers'.
 *
 * Requests (IPC): `{ type: 'seed', groups }` creates and completes that many transactions at once
 * (`simulator/seed.ts`) and answers how many; `{ type: 'limit', rate, paths }` sets the account's rate limit
 * (429 with `Retry-After` above `rate` requests per second); `{ type: 'stats' }` answers the result fetches
 * (results fetched, the most fetches of one result), the 429s and the process's peak RSS.
 */
import { startSimulator } from '../../simulator/server';
import { serveParent } from './child';
import { BENCH_CREDENTIALS } from './credentials';

let handle: (message: Record<string, unknown>) => Promise<Record<string, unknown>>;

async function init() {
  const sim = await startSimulator({ ...BENCH_CREDENTIALS, seed: 25, maxRecordedRequests: 10 });
  let rssPeak = process.memoryUsage().rss;
  setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 200).unref();
  handle = async (message) => {
    switch (message.type) {
      case 'seed': {
        const resultIds = sim.control.seed(message.groups as Parameters<typeof sim.control.seed>[0]);
        return { type: 'seeded', count: resultIds.length };
      }
      case 'limit':
        sim.control.setFaults({
          rateLimitPerSecond: Number(message.rate),
          ...(Array.isArray(message.paths) && { paths: message.paths as string[] }),
        });
        return { type: 'limited' };
      case 'stats': {
        const stats = sim.control.stats();
        const fetches = Object.values(stats.resultFetches);
        return {
          type: 'stats',
          resultsFetched: fetches.length,
          maxFetchesPerResult: Math.max(0, ...fetches),
          rateLimited: stats.faults.rateLimit,
          pollRecords: stats.pollRecords,
          rssPeakBytes: rssPeak,
          cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
        };
      }
      default:
        throw new Error(`unknown request ${String(message.type)}`);
    }
  };
  return { url: sim.url };
}

await serveParent(init, (message) => handle(message));
