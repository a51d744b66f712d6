/**
 * `npm run bench -- analytics` (docs/benchmarks.md, "Analytics at a million results"): generates
 * 1,000,000 projected results with a realistic mix (products, outcomes, reason keys, sections, 365 days,
 * completion-to-storage delays, a few results unavailable first and stored later, a few repeated events),
 * appends them through the local store and compacts them into Parquet in batches, as the local run does,
 * then times every saved query and the report on DuckDB, and measures bytes per result on disk. The
 * one-JSON-object-per-result layout is measured beside it on a sample (its per-result cost does not
 * shrink with size; a million files would take minutes and gigabytes on a shared machine).
 *
 * Figures are measured and reported, never asserted; the bench fails only when the answer is wrong
 * (not one row per result), since then the figures lie.
 */

import { once } from 'node:events';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openLocalAnalytics } from '../local/analytics-duckdb';
import { compactLocalProjection, localAnalyticsDir, localParquetFile } from '../local/analytics-store';
import { duckdbType, PROJECTION_COLUMNS } from '../shared/analytics/columns';
import { type ProjectionRecord, projectEvent, recordKey, recordLine } from '../shared/analytics/projection';
import {
  RESULTS_RAW_TABLE,
  RESULTS_VIEW,
  resultsViewSql,
  SAVED_QUERY_NAMES,
  savedQuery,
} from '../shared/analytics/queries';
import { gatherReport } from '../shared/analytics/report';
import { reportHtml } from '../shared/analytics/report-html';
import { DETAIL_TYPES } from '../shared/events/names';

/** Options of {@link runAnalyticsBench}. */
export interface AnalyticsBenchOptions {
  /** Results generated. @default 1_000_000 */
  readonly results?: number;
  /** Results per append-and-compact batch. @default 250_000 */
  readonly batch?: number;
  /** Results of the one-object-per-result sample. @default 20_000 */
  readonly jsonSample?: number;
  /** Keep the data directory (its path is in the figures). @default false */
  readonly keep?: boolean;
  readonly log?: (line: string) => void;
}

/** The figures. */
export interface AnalyticsBenchFigures {
  readonly results: number;
  readonly generateSeconds: number;
  readonly compactSeconds: number;
  readonly parquetBytes: number;
  readonly bytesPerResult: number;
  /** Milliseconds per saved query (first run and the best of three). */
  readonly queries: { name: string; firstMs: number; bestMs: number; rows: number }[];
  readonly reportMs: number;
  readonly reportHtmlBytes: number;
  readonly jsonLayout: {
    readonly results: number;
    readonly apparentBytesPerResult: number;
    readonly diskBytesPerResult: number;
    /** One saved query over the sample, ms, and the same per 1,000 results. */
    readonly queryMs: number;
    readonly queryMsPer1000: number;
  };
  readonly dataDir?: string;
}

const PRODUCTS: [string, number][] = [
  ['IDV_STANDARD', 34],
  ['RTW_STANDARD', 20],
  ['RTW_PREMIUM', 15],
  ['IDV_LITE', 14],
  ['IDV_PREMIUM', 12],
  ['FACE_LINK', 5],
];
const OUTCOMES: [string, number][] = [
  ['APPROVED', 78],
  ['DISAPPROVED', 14],
  ['TECHNICAL_REJECT', 6],
  ['UNKNOWN', 2],
];
const REASONS = [
  'DOCUMENT_EXPIRED',
  'FACE_MISMATCH',
  'IMAGE_TOO_BLURRY',
  'MRZ_CHECK_FAILED',
  'DOCUMENT_NOT_SUPPORTED',
  'GLARE_DETECTED',
  'LIVENESS_FAILED',
  'SECURITY_FEATURE_MISSING',
  'DOCUMENT_DAMAGED',
  'NO_FACE_DETECTED',
  'RTW_NOT_ALLOWED',
  'RTW_PERMIT_EXPIRED',
  'AGE_BELOW_MINIMUM',
  'DOCUMENT_PAGE_MISSING',
  'IMAGE_TOO_SMALL',
  'SANCTION_LIST_HIT',
  'LOST_OR_STOLEN',
  'SIGNATURE_MISSING',
  'TAMPERING_SUSPECTED',
  'UNREADABLE_MRZ',
];
const DOCUMENT_TYPES: [string, number][] = [
  ['PASSPORT', 45],
  ['ID_CARD', 40],
  ['RESIDENCE_PERMIT', 10],
  ['DRIVING_LICENSE', 5],
];
const STATES: [string, number][] = [
  ['NLD', 60],
  ['BEL', 10],
  ['DEU', 10],
  ['POL', 8],
  ['GBR', 6],
  ['ROU', 6],
];

/** mulberry32: a small seeded generator, so every run generates the same data. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(r: () => number, weighted: readonly [T, number][]): T {
  const total = weighted.reduce((s, [, w]) => s + w, 0);
  let x = r() * total;
  for (const [value, weight] of weighted) {
    x -= weight;
    if (x < 0) return value;
  }
  return weighted[weighted.length - 1]![0];
}

function uuid(r: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(r() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const START_MS = Date.parse('2025-09-01T00:00:00Z');
const USERS = Array.from({ length: 25 }, (_, i) => `api-user-${i + 1}`);

/**
 * The events of result `i`: usually one Stored event; about 1 % are unavailable first and stored later,
 * about 1 % stay unavailable, and about 2 % are announced twice (an at-least-once repeat).
 */
export function benchEvents(r: () => number): { 'detail-type': string; detail: Record<string, unknown> }[] {
  const resultId = uuid(r);
  const product = pick(r, PRODUCTS);
  const completedMs = START_MS + Math.floor(r() * 365 * 86_400_000);
  // Most results are stored within seconds (webhook), some after the next poll, a few much later.
  const delayMs = r() < 0.8 ? 500 + r() * 4_000 : r() < 0.9 ? 30_000 + r() * 60_000 : r() * 3_600_000;
  const completed = new Date(completedMs).toISOString();
  const storedAt = new Date(completedMs + delayMs).toISOString();
  const common = {
    resultId,
    transactionId: uuid(r),
    userId: USERS[Math.floor(r() * USERS.length)],
    product,
    completed,
    environment: 'production',
  };
  const fate = r();
  const unavailable = {
    'detail-type': DETAIL_TYPES.resultUnavailable,
    detail: { ...common, status: 'UNAVAILABLE', reason: 'NOT_FOUND', recordedAt: storedAt },
  };
  if (fate < 0.01) return [unavailable];
  const result = pick(r, OUTCOMES);
  const rejected = result === 'DISAPPROVED' || result === 'TECHNICAL_REJECT';
  const messages = rejected
    ? Array.from({ length: 1 + Math.floor(r() * 2) }, () => REASONS[Math.floor(r() ** 2 * REASONS.length)]!)
    : [];
  const rtw = product.startsWith('RTW');
  const face = product === 'FACE_LINK';
  const premium = product.endsWith('PREMIUM');
  const identityResult = rejected && r() < 0.7 ? result : 'APPROVED';
  const sections: Record<string, string> = face ? { faceLink: result } : { identity: identityResult };
  const sectionMessages: Record<string, string[]> = {};
  if (!face && identityResult !== 'APPROVED') sectionMessages['identity'] = messages.slice(0, 1);
  if (rtw) sections['rightToWork'] = rejected && identityResult === 'APPROVED' ? result : 'APPROVED';
  if (premium) sections['faceVerify'] = r() < 0.95 ? 'APPROVED' : 'DISAPPROVED';
  if (r() < 0.03) sections['drivingLicense'] = 'APPROVED';
  if (r() < 0.02) sections['vog'] = r() < 0.9 ? 'APPROVED' : 'DISAPPROVED';
  const additional = r() < 0.05;
  const stored = {
    'detail-type': DETAIL_TYPES.resultStored,
    detail: {
      ...common,
      status: 'STORED',
      result,
      sections,
      messages,
      ...(Object.keys(sectionMessages).length > 0 && { sectionMessages }),
      ...(rtw && { rtwType: r() < 0.85 ? 'RTW_NL' : 'RTW_BE' }),
      imageCount: face ? 1 : 2 + Math.floor(r() * 3),
      fileCount: 1,
      ...(!face && {
        documentType: pick(r, DOCUMENT_TYPES),
        issuingState: pick(r, STATES),
        documentValidationApproved: 6 + Math.floor(r() * 4),
        documentValidationNotApplicable: Math.floor(r() * 3),
      }),
      ...(premium && { sanctionList: r() < 0.002 ? 'HIT' : 'NO_HIT', lostAndStolen: 'NO_HIT' }),
      ...(sections['vog'] && { vogStatus: 'COMPLETED' }),
      ...(additional && {
        additionalDocumentResults: ['APPROVED'],
        additionalDocumentTypes: ['BANK_STATEMENT'],
      }),
      storedAt,
    },
  };
  if (fate < 0.02) {
    // Unavailable first (recorded a day earlier), served later.
    const early = new Date(completedMs - 86_400_000).toISOString();
    return [
      { ...unavailable, detail: { ...unavailable.detail, recordedAt: early, completed: undefined } },
      stored,
    ];
  }
  if (fate < 0.04) return [stored, stored];
  return [stored];
}

/**
 * Appends `total` generated results (seeded: the same every run) to the local store of `dataDir` and
 * compacts after every `batch`, as the local run does. Used by the bench and the report's screenshot test.
 */
export async function generateProjection(
  dataDir: string,
  total: number,
  batch = 250_000,
  log: (line: string) => void = () => undefined,
): Promise<{ generateMs: number; compactMs: number }> {
  mkdirSync(localAnalyticsDir(dataDir), { recursive: true });
  const r = random(22);
  let generateMs = 0;
  let compactMs = 0;
  for (let done = 0; done < total; ) {
    const size = Math.min(batch, total - done);
    const [, genMs] = await timed(async () => {
      // The sink appends one line per event; written through one stream here for speed.
      const out = createWriteStream(join(localAnalyticsDir(dataDir), 'incoming.jsonl'), { flags: 'a' });
      for (let i = 0; i < size; i++) {
        for (const event of benchEvents(r)) {
          if (!out.write(recordLine(projectEvent(event, { customerReference: 'omit' })!))) {
            await once(out, 'drain');
          }
        }
      }
      out.end();
      await once(out, 'finish');
    });
    const [summary, cMs] = await timed(() => compactLocalProjection(dataDir));
    generateMs += genMs;
    compactMs += cMs;
    done += size;
    log(`analytics: ${done} results generated, compacted into ${summary?.rows} rows (${cMs} ms)`);
  }
  return { generateMs, compactMs };
}

/** Wall time of `work` in milliseconds. */
async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, Math.round(performance.now() - started)];
}

/** Runs the bench. */
export async function runAnalyticsBench(options: AnalyticsBenchOptions = {}): Promise<AnalyticsBenchFigures> {
  const total = options.results ?? 1_000_000;
  const batch = options.batch ?? 250_000;
  const log = options.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-bench-analytics-'));
  let generateMs = 0;
  let compactMs = 0;
  try {
    ({ generateMs, compactMs } = await generateProjection(dataDir, total, batch, log));
    const parquetBytes = statSync(localParquetFile(dataDir)).size;
    const engine = await openLocalAnalytics(dataDir, { compact: false });
    const [{ rows: counts }] = await Promise.all([
      engine.query(`SELECT count(*) AS n, count(DISTINCT result_id) AS d FROM ${RESULTS_RAW_TABLE}`),
    ]);
    const { n, d } = counts[0] as { n: number; d: number };
    if (n !== total || d !== total)
      throw new Error(`bench: ${n} rows for ${d} results of ${total}: not one row per result`);
    const queries: AnalyticsBenchFigures['queries'] = [];
    for (const name of SAVED_QUERY_NAMES) {
      const sql = savedQuery(name).sql;
      const [answer, firstMs] = await timed(() => engine.query(sql));
      let bestMs = firstMs;
      for (let i = 0; i < 2; i++) bestMs = Math.min(bestMs, (await timed(() => engine.query(sql)))[1]);
      queries.push({ name, firstMs, bestMs, rows: answer.rows.length });
      log(`analytics: ${name} ${firstMs} ms (best ${bestMs} ms), ${answer.rows.length} rows`);
    }
    const [html, reportMs] = await timed(async () => reportHtml(await gatherReport(engine, {})));
    await engine.close();
    log(`analytics: report ${reportMs} ms`);
    const jsonLayout = await measureJsonLayout(options.jsonSample ?? 20_000, log);
    return {
      results: total,
      generateSeconds: Math.round(generateMs / 100) / 10,
      compactSeconds: Math.round(compactMs / 100) / 10,
      parquetBytes,
      bytesPerResult: Math.round((10 * parquetBytes) / total) / 10,
      queries,
      reportMs,
      reportHtmlBytes: Buffer.byteLength(html),
      jsonLayout,
      ...(options.keep && { dataDir }),
    };
  } finally {
    if (!options.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The earlier layout on a sample: one JSON object per result and status under `day=…/`, read through
 * `read_json` and the same view; bytes as listed and as allocated on disk (4 KiB blocks per file).
 */
async function measureJsonLayout(
  results: number,
  log: (line: string) => void,
): Promise<AnalyticsBenchFigures['jsonLayout']> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-bench-analytics-json-'));
  try {
    const r = random(7);
    for (let i = 0; i < results; i++) {
      for (const event of benchEvents(r)) {
        const record: ProjectionRecord = projectEvent(event, { customerReference: 'omit' })!;
        const file = join(dir, recordKey(record));
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, recordLine(record));
      }
    }
    let apparent = 0;
    let disk = 0;
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const info = await stat(join(entry.parentPath, entry.name));
      apparent += info.size;
      disk += info.blocks * 512;
    }
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const types = PROJECTION_COLUMNS.map((c) => `${c.name}: '${duckdbType(c.kind)}'`).join(', ');
    await connection.run(
      `CREATE VIEW ${RESULTS_RAW_TABLE} AS SELECT * FROM read_json('${join(dir, 'analytics', 'results', 'day=*', '*.json')}', format = 'newline_delimited', columns = {${types}}, hive_partitioning = false)`,
    );
    await connection.run(`CREATE VIEW ${RESULTS_VIEW} AS ${resultsViewSql()}`);
    const [, queryMs] = await timed(() =>
      connection.runAndReadAll(savedQuery('approval-rate-by-product-per-day').sql),
    );
    connection.closeSync();
    instance.closeSync();
    log(`analytics: JSON-per-result sample of ${results}: ${queryMs} ms for one saved query`);
    return {
      results,
      apparentBytesPerResult: Math.round(apparent / results),
      diskBytesPerResult: Math.round(disk / results),
      queryMs,
      queryMsPer1000: Math.round((1000 * queryMs) / results) / 1,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures as a table for the terminal. */
export function analyticsTable(figures: AnalyticsBenchFigures): string {
  const lines = [
    `results                     ${figures.results}`,
    `generate + append           ${figures.generateSeconds} s`,
    `compact (all batches)       ${figures.compactSeconds} s`,
    `Parquet on disk             ${figures.parquetBytes} bytes, ${figures.bytesPerResult} bytes/result`,
    ...figures.queries.map(
      (q) =>
        `${q.name.padEnd(34)} ${String(q.firstMs).padStart(6)} ms first, ${String(q.bestMs).padStart(6)} ms best (${q.rows} rows)`,
    ),
    `report (all saved queries + HTML) ${String(figures.reportMs).padStart(5)} ms`,
    `JSON per result (sample ${figures.jsonLayout.results}): ${figures.jsonLayout.apparentBytesPerResult} bytes/result listed, ${figures.jsonLayout.diskBytesPerResult} on disk; one saved query ${figures.jsonLayout.queryMs} ms (${figures.jsonLayout.queryMsPer1000} ms per 1,000 results)`,
  ];
  return lines.join('\n');
}
