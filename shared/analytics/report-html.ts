/**
 * The `--html` page of `idv analytics report`: one self-contained file, charts as inline SVG, no script,
 * no font, nothing fetched from the network. Every text from the data is HTML-escaped.
 */
import { approvalByProduct, group, outcomeTotals, percent, periodText, type ReportData } from './report';

/** Colours of the outcomes; anything else is grey. */
const OUTCOME_COLOURS: Readonly<Record<string, string>> = {
  APPROVED: '#2e7d32',
  DISAPPROVED: '#c62828',
  TECHNICAL_REJECT: '#ef8f00',
  UNKNOWN: '#78909c',
  UNAVAILABLE: '#6a1b9a',
};
const BAR_COLOUR = '#1565c0';
/** Colours of the products' lines, in order of first appearance (a colour-blind-safe palette). */
const SERIES_COLOURS = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#cc79a7',
  '#56b4e9',
  '#d55e00',
  '#000000',
  '#999999',
];

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

interface Bar {
  readonly label: string;
  /** Segments of the bar (one for a plain bar). */
  readonly segments: readonly { value: number; colour: string; title: string }[];
  /** Text right of the bar. */
  readonly note: string;
}

/** A horizontal bar chart; `max` fixes the scale (e.g. 100 for percentages). */
function barChart(bars: readonly Bar[], max?: number): string {
  if (bars.length === 0) return '<p class="empty">No data for this period.</p>';
  // Labels are upper-case codes: about 8.5 px per character at 12 px.
  const labelWidth = Math.min(320, 20 + 8.5 * Math.max(...bars.map((b) => b.label.length)));
  const plotWidth = 480;
  const rowHeight = 26;
  const scale = max ?? Math.max(1, ...bars.map((b) => b.segments.reduce((s, x) => s + x.value, 0)));
  const width = labelWidth + plotWidth + 270;
  const height = bars.length * rowHeight + 8;
  const rows = bars.map((bar, i) => {
    const y = 4 + i * rowHeight;
    let x = labelWidth;
    const rects = bar.segments.map((segment) => {
      const w = (segment.value / scale) * plotWidth;
      const rect = `<rect x="${x.toFixed(1)}" y="${y + 3}" width="${Math.max(0, w).toFixed(1)}" height="${rowHeight - 8}" fill="${segment.colour}"><title>${escapeHtml(segment.title)}</title></rect>`;
      x += w;
      return rect;
    });
    return [
      `<text x="${labelWidth - 8}" y="${y + rowHeight / 2 + 4}" text-anchor="end">${escapeHtml(bar.label)}</text>`,
      ...rects,
      `<text x="${(x + 6).toFixed(1)}" y="${y + rowHeight / 2 + 4}" class="note">${escapeHtml(bar.note)}</text>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">${rows.join('')}</svg>`;
}

/** Daily approval rate over all products as a column chart (the last 60 days of the period). */
function dailyChart(data: ReportData): string {
  const days = new Map<string, [number, number]>();
  for (const row of data.approvalByDay) {
    const day = String(row['day']);
    const entry = days.get(day) ?? [0, 0];
    entry[0] += num(row['approved']);
    entry[1] += num(row['results']);
    days.set(day, entry);
  }
  const series = [...days].sort((a, b) => a[0].localeCompare(b[0])).slice(-60);
  if (series.length === 0) return '<p class="empty">No stored results in this period.</p>';
  const plotHeight = 160;
  const column = Math.max(8, Math.min(40, Math.floor(720 / series.length)));
  const left = 40;
  // Room right of the last column for its rotated day label.
  const width = left + series.length * column + 80;
  const height = plotHeight + 70;
  const grid = [0, 50, 100].map((p) => {
    const y = 10 + plotHeight - (p / 100) * plotHeight;
    return `<line x1="${left}" x2="${width - 10}" y1="${y}" y2="${y}" class="grid"/><text x="${left - 6}" y="${y + 4}" text-anchor="end" class="note">${p}%</text>`;
  });
  const columns = series.map(([day, [approved, results]], i) => {
    const rate = percent(approved, results);
    // A day with no approvals still shows a sliver, so it does not read as a day without results.
    const h = Math.max(1.5, (rate / 100) * plotHeight);
    const x = left + i * column + 2;
    const labelled = series.length <= 15 || i % Math.ceil(series.length / 15) === 0;
    return [
      `<rect x="${x}" y="${(10 + plotHeight - h).toFixed(1)}" width="${column - 4}" height="${h.toFixed(1)}" fill="${BAR_COLOUR}"><title>${escapeHtml(`${day}: ${rate}% approved (${approved} of ${results})`)}</title></rect>`,
      labelled
        ? `<text transform="translate(${x + column / 2},${plotHeight + 18}) rotate(45)" class="note">${escapeHtml(day)}</text>`
        : '',
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">${grid.join('')}${columns.join('')}</svg>`;
}

/**
 * Approval rate per day and product as one line per product (by week when the period is longer than
 * 120 days, so a year stays readable), with a legend.
 */
function productLines(data: ReportData): string {
  const rows = data.approvalByDay;
  if (rows.length === 0) return '<p class="empty">No stored results in this period.</p>';
  const days = [...new Set(rows.map((row) => String(row['day'])))].sort();
  const weekly = days.length > 120;
  const bucketOf = (day: string) => (weekly ? weekStart(day) : day);
  const buckets = [...new Set(days.map(bucketOf))].sort();
  const index = new Map(buckets.map((b, i) => [b, i]));
  const products = [...new Set(rows.map((row) => label(row['product'])))].sort();
  const sums = new Map<string, [number, number]>();
  for (const row of rows) {
    const key = `${label(row['product'])}|${bucketOf(String(row['day']))}`;
    const entry = sums.get(key) ?? [0, 0];
    entry[0] += num(row['approved']);
    entry[1] += num(row['results']);
    sums.set(key, entry);
  }
  const left = 44;
  const plotWidth = 820;
  const plotHeight = 220;
  const top = 10;
  const width = left + plotWidth + 20;
  const height = top + plotHeight + 60;
  const x = (i: number) =>
    left + (buckets.length === 1 ? plotWidth / 2 : (i / (buckets.length - 1)) * plotWidth);
  const y = (rate: number) => top + plotHeight - (rate / 100) * plotHeight;
  const grid = [0, 25, 50, 75, 100].map(
    (p) =>
      `<line x1="${left}" x2="${left + plotWidth}" y1="${y(p)}" y2="${y(p)}" class="grid"/><text x="${left - 6}" y="${y(p) + 4}" text-anchor="end" class="note">${p}%</text>`,
  );
  const step = Math.ceil(buckets.length / 12);
  const ticks = buckets
    .map((b, i) =>
      i % step === 0
        ? `<text x="${x(i).toFixed(1)}" y="${top + plotHeight + 18}" text-anchor="middle" class="note">${escapeHtml(b.slice(5))}</text>`
        : '',
    )
    .join('');
  const lines = products.map((product, p) => {
    const colour = SERIES_COLOURS[p % SERIES_COLOURS.length]!;
    const points = buckets.flatMap((bucket) => {
      const entry = sums.get(`${product}|${bucket}`);
      if (!entry || entry[1] === 0) return [];
      const rate = percent(entry[0], entry[1]);
      return [{ bucket, rate, entry, at: `${x(index.get(bucket)!).toFixed(1)},${y(rate).toFixed(1)}` }];
    });
    // A dot per point as well: one day (or a product seen on one day only) is a line of one point, which
    // no browser draws.
    const dots = points.map(({ bucket, rate, entry, at }) => {
      const [cx, cy] = at.split(',');
      const title = `${product} ${bucket}: ${rate}% approved (${entry[0]} of ${entry[1]})`;
      return `<circle cx="${cx}" cy="${cy}" r="3.5" fill="${colour}"><title>${escapeHtml(title)}</title></circle>`;
    });
    return `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map((pt) => pt.at).join(' ')}"><title>${escapeHtml(product)}</title></polyline>${dots.join('')}`;
  });
  const legend = products
    .map(
      (product, p) =>
        `<span class="key"><span class="swatch" style="background:${SERIES_COLOURS[p % SERIES_COLOURS.length]}"></span>${escapeHtml(product)}</span>`,
    )
    .join(' ');
  return `<p>${legend}<span class="note"> · ${weekly ? 'per week (Monday)' : 'per day'}, ${escapeHtml(buckets[0]!)} … ${escapeHtml(buckets.at(-1)!)}</span></p><svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" class="lines">${grid.join('')}${ticks}${lines.join('')}</svg>`;
}

/** The Monday (yyyy-MM-dd) of the week of `day`. */
function weekStart(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  const back = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - back * 86_400_000).toISOString().slice(0, 10);
}

const label = (value: unknown): string => (value === null || value === undefined ? '(none)' : String(value));

function table(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '<p class="empty">None.</p>';
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${columns.map((c) => `<td>${escapeHtml(row[c] ?? '')}</td>`).join('')}</tr>`)
    .join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The whole page. */
export function reportHtml(data: ReportData): string {
  const totals = outcomeTotals(data);
  const total = totals.reduce((s, [, n]) => s + n, 0);
  const approval = approvalByProduct(data);
  const approved = approval.reduce((s, [, a]) => s + a, 0);
  const stored = approval.reduce((s, [, , n]) => s + n, 0);
  const outcomes = barChart(
    group(data.byProductOutcome).map(([product, parts]) => ({
      label: product,
      segments: parts.map(([outcome, n]) => ({
        value: n,
        colour: OUTCOME_COLOURS[outcome] ?? '#9e9e9e',
        title: `${product}: ${n} ${outcome}`,
      })),
      note: String(parts.reduce((s, [, n]) => s + n, 0)),
    })),
  );
  const legend = totals
    .map(
      ([outcome, n]) =>
        `<span class="key"><span class="swatch" style="background:${OUTCOME_COLOURS[outcome] ?? '#9e9e9e'}"></span>${escapeHtml(outcome)} (${n})</span>`,
    )
    .join(' ');
  const approvalChart = barChart(
    approval.map(([product, a, n, p]) => ({
      label: product,
      segments: [
        { value: p, colour: OUTCOME_COLOURS['APPROVED']!, title: `${product}: ${p}% (${a} of ${n})` },
      ],
      note: `${p}% (${a} of ${n})`,
    })),
    100,
  );
  const rejects = barChart(
    data.topRejectMessages.map((row) => ({
      label: String(row['message']),
      segments: [
        {
          value: num(row['results']),
          colour: OUTCOME_COLOURS['DISAPPROVED']!,
          title: String(row['message']),
        },
      ],
      note: String(num(row['results'])),
    })),
  );
  const timing = barChart(
    data.timing.map((row) => {
      const median = num(row['median_seconds']);
      const p90 = num(row['p90_seconds']);
      return {
        label: String(row['product']),
        segments: [
          { value: median, colour: BAR_COLOUR, title: `median ${median} s` },
          { value: Math.max(0, p90 - median), colour: '#90caf9', title: `90th percentile ${p90} s` },
        ],
        note: `median ${median} s · p90 ${p90} s · max ${num(row['max_seconds'])} s`,
      };
    }),
  );
  const sections = barChart(
    group(
      data.sectionOutcomes.map((row) => ({
        product: row['section'],
        outcome: row['outcome'],
        results: row['results'],
      })),
    ).map(([section, parts]) => ({
      label: section,
      segments: parts.map(([outcome, n]) => ({
        value: n,
        colour: OUTCOME_COLOURS[outcome] ?? '#9e9e9e',
        title: `${section}: ${n} ${outcome}`,
      })),
      note: parts
        .map(
          ([outcome, n]) =>
            `${percent(
              n,
              parts.reduce((s, [, m]) => s + m, 0),
            )}% ${outcome.toLowerCase()}`,
        )
        .slice(0, 2)
        .join(' · '),
    })),
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verification results, ${escapeHtml(periodText(data))}</title>
<style>
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2329; margin: 24px auto; max-width: 1000px; padding: 0 16px; }
  h1 { font-size: 22px; margin-bottom: 4px; }
  h2 { font-size: 17px; margin-top: 32px; border-bottom: 1px solid #dde3e8; padding-bottom: 4px; }
  .meta, .note, .empty { color: #5f6b76; }
  .tiles { display: flex; gap: 12px; flex-wrap: wrap; margin-top: 16px; }
  .tile { border: 1px solid #dde3e8; border-radius: 6px; padding: 10px 16px; min-width: 150px; }
  .tile b { display: block; font-size: 24px; }
  svg text { font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; fill: #1d2329; }
  svg text.note { fill: #5f6b76; }
  svg line.grid { stroke: #e3e8ec; }
  .key { margin-right: 14px; white-space: nowrap; }
  .swatch { display: inline-block; width: 11px; height: 11px; margin-right: 5px; vertical-align: -1px; }
  table { border-collapse: collapse; font-size: 13px; }
  th, td { border-bottom: 1px solid #e3e8ec; padding: 4px 10px; text-align: left; }
</style>
</head>
<body>
<h1>Verification results</h1>
<div class="meta">${escapeHtml(periodText(data))} · ${escapeHtml(data.source)} · generated ${escapeHtml(data.generatedAt)}</div>
<div class="tiles">
  <div class="tile"><b>${total}</b>results</div>
  <div class="tile"><b>${percent(approved, stored)}%</b>approved (${approved} of ${stored} stored)</div>
  <div class="tile"><b>${data.unavailable.length}</b>unavailable</div>
</div>
<h2>Results by product and outcome</h2>
<p>${legend}</p>
${outcomes}
<h2>Approval rate by product</h2>
${approvalChart}
<h2>Approval rate per day and product</h2>
${productLines(data)}
<h2>Approval rate per day (all products)</h2>
${dailyChart(data)}
<h2>Top reject reasons</h2>
${rejects}
<h2>Completed → stored: median and 90th percentile seconds by product</h2>
<p><span class="key"><span class="swatch" style="background:${BAR_COLOUR}"></span>median</span><span class="key"><span class="swatch" style="background:#90caf9"></span>up to the 90th percentile</span></p>
${timing}
<h2>Section outcomes</h2>
${sections}
<h2>Unavailable results</h2>
${table(['result_id', 'product', 'recorded_at', 'day'], data.unavailable.slice(0, 100))}
</body>
</html>
`;
}
