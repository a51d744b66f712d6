/**
 * The local run against a service with one very large result (docs/benchmarks.md, "Local run with a
 * large result"): `npx tsx bench/local-run.ts [--image-mib 150] [--images 10]`.
 *
 * A service that generates each result body while writing it (`support/stream-service.ts`, never in
 * memory) announces one result in its poll; `npm start -- --service-url URL --once` (run as
 * `node --import tsx bin/start.ts`, so the process measured is the run itself, emulators and handler
 * code included) polls, fetches and stores it, and exits. Then `idv results get ID --local --out DIR`
 * writes the stored images, and each is compared with the SHA-256 of the bytes the service generated.
 * The kernel's peak RSS (VmHWM) and the CPU time of the run are read from /proc while it runs, and the
 * floor of the same body (`support/local-floor.ts`) runs after it; the same run with a 96 KiB
 * result first gives the baseline, so "growth" is what the large result added. Figures are printed,
 * never asserted; the script fails only when the run fails or a stored image differs.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startChild } from './support/child';
import { BENCH_CREDENTIALS } from './support/credentials';
import { formatTable, mib, round } from './support/stats';
import { atMost, rssLimitBytes } from './support/targets';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npx tsx bench/local-run.ts [--image-mib N (default 150)] [--images N (default 10)]';

/** One run of `npm start -- --once` and what it stored. */
interface RunFigures {
  resultId: string;
  images: number;
  imageBytes: number;
  bodyBytes: number;
  seconds: number;
  peakRssBytes: number;
  identical: number;
  /** CPU of the `npm start --once` process, and of the floor process on the same body. */
  cpuMs: number;
  floorCpuMs: number;
}

function options(): { imageMiB: number; images: number } {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { 'image-mib': { type: 'string' }, images: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const imageMiB = Number(values['image-mib'] ?? 150);
  const images = Number(values.images ?? 10);
  if (!(imageMiB > 0) || !Number.isInteger(images) || images < 1) {
    console.error(
      `bench/local-run: --image-mib must be a positive number and --images a positive integer\n${USAGE}`,
    );
    process.exit(2);
  }
  return { imageMiB, images };
}

/** Runs `node --import tsx <script> args` in the repository; resolves with its exit and peak RSS. */
function run(
  script: string,
  args: string[],
): Promise<{ code: number | null; peak: number; cpuMs: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        IDV_CLIENT_SECRET: BENCH_CREDENTIALS.clientSecret,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let peak = 0;
    let cpuMs = 0;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    // VmHWM is the kernel's running peak: the last value read before the exit is the run's peak.
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
        peak = Math.max(peak, kib * 1024);
        // utime + stime in clock ticks (100 per second): the last reading is within 20 ms of the exit.
        const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        cpuMs = Math.max(cpuMs, (Number(stat[11]) + Number(stat[12])) * 10 || 0);
      } catch {
        // The process has just exited.
      }
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      resolve({ code, peak, cpuMs, stderr });
    });
  });
}

async function oneRun(
  service: ReturnType<typeof startChild>,
  serviceUrl: string,
  resultId: string,
  images: number,
  imageBytes: number,
): Promise<RunFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'idv-local-run-'));
  try {
    const { bodyBytes } = await service.request<{ bodyBytes: number }>({
      type: 'add',
      resultId,
      images,
      imageBytes,
    });
    const started = Date.now();
    const start = await run('bin/start.ts', [
      '--service-url',
      serviceUrl,
      '--client-id',
      BENCH_CREDENTIALS.clientId,
      '--once',
      '--port',
      '0',
      '--data-dir',
      path.join(dir, 'data'),
    ]);
    const seconds = (Date.now() - started) / 1000;
    if (start.code !== 0) throw new Error(`npm start --once exited ${start.code}: ${start.stderr}`);
    const out = path.join(dir, 'out');
    const get = await run('bin/idv.ts', [
      'results',
      'get',
      resultId,
      '--local',
      '--data-dir',
      path.join(dir, 'data'),
      '--out',
      out,
    ]);
    if (get.code !== 0) throw new Error(`idv results get exited ${get.code}: ${get.stderr}`);
    const expected = (await service.request<{ images: string[] }>({ type: 'digests', resultId })).images;
    const files = readdirSync(out)
      .filter((name) => name !== 'result.json')
      .sort();
    if (files.length !== expected.length) {
      throw new Error(
        `${resultId}: ${files.length} images written, the service generated ${expected.length}`,
      );
    }
    let identical = 0;
    for (const [i, name] of files.entries()) {
      const digest = createHash('sha256')
        .update(readFileSync(path.join(out, name)))
        .digest('hex');
      if (digest !== expected[i])
        throw new Error(`${resultId}: ${name} differs from what the service generated`);
      identical++;
    }
    // The floor of the same body against emulators of its own, in one process as the run.
    const floor = await run('bench/support/local-floor.ts', [
      serviceUrl,
      resultId,
      String(images),
      String(imageBytes),
      path.join(dir, 'floor'),
    ]);
    if (floor.code !== 0) throw new Error(`the floor exited ${floor.code}: ${floor.stderr}`);
    return {
      resultId,
      images,
      imageBytes,
      bodyBytes,
      seconds,
      peakRssBytes: start.peak,
      identical,
      cpuMs: start.cpuMs,
      floorCpuMs: floor.cpuMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { imageMiB, images } = options();
const log = (line: string) => console.error(line);
log(
  `bench/local-run: load average ${round(loadavg()[0] ?? 0, 2)}; ${images} images, ${imageMiB} MiB of images in all`,
);
const service = startChild('support/stream-service.ts');
try {
  const { url } = (await service.ready) as { url: string };
  log('baseline: a 96 KiB result');
  const small = await oneRun(service, url, 'local-run-small', 1, 96 * 1024);
  log(`large: ${images} × ${round(imageMiB / images, 1)} MiB`);
  const imageBytes = Math.floor((imageMiB * 1024 * 1024) / images);
  const large = await oneRun(service, url, 'local-run-large', images, imageBytes);
  const growth = large.peakRssBytes - small.peakRssBytes;
  const target = rssLimitBytes(large.bodyBytes);
  console.log(
    formatTable(
      ['run', 'images', 'body MiB', 'seconds', 'peak RSS MiB', 'byte-identical', 'CPU s', 'floor CPU s'],
      [small, large].map((r) => [
        r.resultId,
        r.images,
        round(r.bodyBytes / 1024 / 1024, 1),
        round(r.seconds, 1),
        mib(r.peakRssBytes),
        `${r.identical}/${r.images}`,
        round(r.cpuMs / 1000, 2),
        round(r.floorCpuMs / 1000, 2),
      ]),
    ),
  );
  console.log(
    `peak RSS growth of the large result: ${mib(growth)} MiB (target 64 MiB + 0.1 × body = ${mib(target)} MiB): ${atMost(growth, target)}`,
  );
  // Start-up (emulators, tsx, the token) is what the small run costs: the difference is the body's.
  const mb = (large.bodyBytes - small.bodyBytes) / 1e6;
  const perMb = (large.cpuMs - small.cpuMs) / mb;
  const floorPerMb = (large.floorCpuMs - small.floorCpuMs) / mb;
  console.log(
    `CPU per MB of body (large less small): run ${round(perMb, 2)} ms, floor ${round(floorPerMb, 2)} ms ` +
      `(native decode + SHA-256 + one PutObject per image to the same emulators in one process), ${round(perMb / floorPerMb, 2)}× the floor`,
  );
} finally {
  await service.close();
}
