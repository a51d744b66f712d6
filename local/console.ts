/**
 * The local console: one small page that `npm start` serves on its webhook port, under a random secret
 * path printed at start (and kept in the 0600 stack file), so only the run's owner can open it — the same
 * protection as the rest of the local run (docs/local-run.md, "Who can reach the local run"). It shows the
 * results as they arrive, the DLQ with reasons and a redrive button, the event stream and the trace of one
 * result; an image is fetched only when its link is clicked.
 *
 * Everything is rendered on the server and escaped there; the page needs no script to work (a small
 * inline one refreshes it and opens images in place). No external asset: nothing is loaded from the
 * network at view time. A wrong secret is a 404 before any body is read; a POST needs the page's CSRF
 * token, a same-origin `Origin` (when sent) and the run's own `Host`, so neither another site nor a DNS
 * rebinding can drive it.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DlqEntry } from '../shared/queries/dlq';
import { redriveDlq } from '../shared/queries/dlq';
import { getResult, listResults, objectRefs, withFullDocument } from '../shared/queries/results';
import { buildTrace, type ResultTrace } from '../shared/queries/trace';
import type { ResultItem } from '../shared/store/item';
import { Publications } from '../shared/store/publication';
import { sameSecret } from './aws-auth';
import { journalSteps, lastFailureReasons, readJournal } from './console-journal';
import type { LocalEvent } from './fake-eventbridge';
import { answerUnread, readBounded } from './http-body';

/** What the console reads and acts on. */
export interface ConsoleDeps {
  dataDir: string;
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
  tableName: string;
  queueUrl: string;
  dlqUrl: string;
  /** The events of this run, oldest first. */
  events: () => LocalEvent[];
  /** The DLQ as the run's watch last saw it. */
  dlq: () => DlqEntry[];
  /** Re-reads the DLQ after a redrive. */
  refreshDlq: () => Promise<void>;
}

/** The console of one run: its secret path and the request handler to mount on the webhook server. */
export interface LocalConsole {
  /** `/console/<secret>/`: the page. */
  readonly path: string;
  /** Handles the request when it is the console's (true), else leaves it alone (false). */
  handle(req: IncomingMessage, res: ServerResponse, port: number): boolean;
}

const PREFIX = '/console/';
/** Results shown (newest first). */
const MAX_RESULTS = 50;
const MAX_EVENTS = 50;
/** A redrive form is a few short fields. */
const MAX_FORM_BYTES = 4096;
const IMAGE_TYPES = /^image\/(jpeg|png|gif|webp)$/;

/** Creates the console with fresh random secrets (path and CSRF token). */
export function createConsole(deps: ConsoleDeps, secrets = consoleSecrets()): LocalConsole {
  const base = `${PREFIX}${secrets.path}/`;
  return {
    path: base,
    handle: (req, res, port) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (!url.pathname.startsWith(PREFIX)) return false;
      const [secret = '', ...rest] = url.pathname.slice(PREFIX.length).split('/');
      if (!sameSecret(secret, secrets.path) || !allowedHost(req.headers.host, port)) {
        answerUnread(res, 404, '{"message":"Not Found"}');
        return true;
      }
      const route = `${req.method} /${rest.join('/')}`;
      const answer = (async () => {
        if (route === 'GET /')
          return sendPage(res, await renderPage(deps, secrets, url.searchParams.get('trace')));
        if (route === 'GET /image') return sendImage(res, deps, url.searchParams);
        if (route === 'POST /redrive') return redrive(req, res, deps, secrets, port);
        answerUnread(res, 404, '{"message":"Not Found"}');
      })();
      answer.catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`console error: ${error instanceof Error ? error.name : 'error'}`);
      });
      return true;
    },
  };
}

/** The console's secrets: its path segment and the token every form carries. */
export function consoleSecrets(): { path: string; csrf: string } {
  return { path: randomBytes(24).toString('base64url'), csrf: randomBytes(24).toString('base64url') };
}

/** Only the run's own address: a DNS-rebound name pointing at 127.0.0.1 is refused. */
function allowedHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

function sendPage(res: ServerResponse, page: { html: string; nonce: string }): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy':
      `default-src 'none'; script-src 'nonce-${page.nonce}'; style-src 'nonce-${page.nonce}'; ` +
      "img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  });
  res.end(page.html);
}

async function sendImage(res: ServerResponse, deps: ConsoleDeps, params: URLSearchParams): Promise<void> {
  const resultId = params.get('result') ?? '';
  const index = Number(params.get('n'));
  const found = resultId ? await getResult(storeDeps(deps), resultId) : undefined;
  const item = found && (await withFullDocument(storeDeps(deps), found));
  const ref = Number.isInteger(index) ? item?.objects?.[index] : undefined;
  if (!item?.bucket || !ref || !IMAGE_TYPES.test(ref.contentType)) {
    answerUnread(res, 404, '{"message":"Not Found"}');
    return;
  }
  const object = await deps.s3.send(new GetObjectCommand({ Bucket: item.bucket, Key: ref.key }));
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': ref.contentType,
    'content-security-policy': "default-src 'none'; sandbox",
  });
  (object.Body as Readable).pipe(res);
}

async function redrive(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ConsoleDeps,
  secrets: { path: string; csrf: string },
  port: number,
): Promise<void> {
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  if (
    (origin !== undefined &&
      origin !== `http://127.0.0.1:${port}` &&
      origin !== `http://localhost:${port}`) ||
    (site !== undefined && site !== 'same-origin' && site !== 'none')
  ) {
    answerUnread(res, 403, '{"message":"Forbidden"}');
    return;
  }
  const body = await readBounded(req, MAX_FORM_BYTES);
  const form = new URLSearchParams(body?.toString('utf8') ?? '');
  if (!body || !sameSecret(form.get('csrf') ?? '', secrets.csrf)) {
    res.writeHead(403, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
    res.end('{"message":"Forbidden"}');
    return;
  }
  const resultId = form.get('resultId') || undefined;
  await redriveDlq({
    sqs: deps.sqs,
    queueUrl: deps.queueUrl,
    dlqUrl: deps.dlqUrl,
    ...(resultId && { resultId }),
  });
  await deps.refreshDlq();
  res.writeHead(303, { ...SECURITY_HEADERS, location: `${PREFIX}${secrets.path}/` });
  res.end();
}

function storeDeps(deps: ConsoleDeps) {
  return { dynamo: deps.dynamo, s3: deps.s3, tableName: deps.tableName };
}

/** The newest results (last 7 days), newest first. */
async function recentResults(deps: ConsoleDeps): Promise<ResultItem[]> {
  const until = new Date(Date.now() + 60_000);
  const items = await listResults(storeDeps(deps), {
    since: new Date(until.getTime() - 7 * 86_400_000),
    until,
  });
  return items.sort((a, b) => b.storedAt.localeCompare(a.storedAt)).slice(0, MAX_RESULTS);
}

/** The trace of one result for the console: item, publication record and the run's journal. */
export async function localTrace(deps: ConsoleDeps, resultId: string): Promise<ResultTrace> {
  const [item, publication] = await Promise.all([
    getResult(storeDeps(deps), resultId),
    new Publications(deps.dynamo, deps.tableName).get(resultId),
  ]);
  return buildTrace({ resultId, item, publication, steps: journalSteps(deps.dataDir, resultId) });
}

function ms(from: string | undefined, to: string | undefined): string {
  if (!from || !to) return '–';
  const span = Date.parse(to) - Date.parse(from);
  return Number.isFinite(span) ? `${(span / 1000).toFixed(1)} s` : '–';
}

function time(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–';
}

async function renderPage(
  deps: ConsoleDeps,
  secrets: { path: string; csrf: string },
  traceId: string | null,
): Promise<{ html: string; nonce: string }> {
  const nonce = randomBytes(16).toString('base64');
  const [results, trace] = await Promise.all([
    recentResults(deps),
    traceId ? localTrace(deps, traceId) : Promise.resolve(undefined),
  ]);
  const announced = new Map<string, string>();
  for (const line of readJournal(deps.dataDir)) {
    if ((line.kind === 'announced' || line.kind === 'redriven') && !announced.has(line.resultId)) {
      announced.set(line.resultId, line.at);
    }
  }
  const reasons = lastFailureReasons(deps.dataDir);
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(secrets.csrf)}">`;
  const resultRows = results.map((item) => {
    const sections = Object.entries(item.sections ?? {})
      .map(([name, value]) => `${escapeHtml(name)} <b>${escapeHtml(value)}</b>`)
      .join('<br>');
    const images = (item.objects ?? (item.document ? objectRefs(item.document) : []))
      .map((ref, index) => ({ ref, index }))
      .filter(({ ref }) => IMAGE_TYPES.test(ref.contentType))
      .map(
        ({ ref, index }) =>
          `<a class="img" href="image?result=${encodeURIComponent(item.resultId)}&amp;n=${index}">show image ${index + 1} (${escapeHtml(ref.contentType)}, ${Math.ceil(ref.bytes / 1024)} KB)</a>`,
      )
      .join(' ');
    const imageCell =
      images || (item.objectCount ? `${item.objectCount} object(s) (open the trace to list them)` : '–');
    return `<tr><td><a href="?trace=${encodeURIComponent(item.resultId)}">${escapeHtml(item.resultId)}</a></td>
<td>${escapeHtml(item.product ?? '–')}</td>
<td class="${escapeHtml((item.result ?? item.status).toLowerCase())}">${escapeHtml(item.result ?? item.status)}</td>
<td>${sections || '–'}</td>
<td>${escapeHtml((item.messages ?? []).join(', ') || '–')}</td>
<td>${escapeHtml(time(announced.get(item.resultId)))}</td><td>${escapeHtml(time(item.storedAt))}</td>
<td>${escapeHtml(ms(announced.get(item.resultId), item.eventPublishedAt ?? item.storedAt))}</td>
<td>${imageCell}</td></tr>`;
  });
  const dlq = deps.dlq();
  const dlqRows = dlq.map((entry) => {
    const failure = entry.resultId ? reasons.get(entry.resultId) : undefined;
    const button = entry.resultId
      ? `<form method="post" action="redrive">${csrf}<input type="hidden" name="resultId" value="${escapeHtml(entry.resultId)}"><button>Redrive</button></form>`
      : 'stays (malformed)';
    return `<tr><td>${entry.resultId ? `<a href="?trace=${encodeURIComponent(entry.resultId)}">${escapeHtml(entry.resultId)}</a>` : escapeHtml(entry.messageId)}</td>
<td>${escapeHtml(entry.kind)}</td><td>${escapeHtml(entry.source ?? '–')}</td>
<td class="reason">${escapeHtml(failure?.reason ?? entry.problem ?? '–')}</td>
<td>${escapeHtml(entry.receiveCount)}</td><td>${escapeHtml(time(entry.firstReceiveAt))}</td>
<td>${escapeHtml(time(failure?.at))}</td><td>${button}</td></tr>`;
  });
  const eventRows = deps
    .events()
    .slice(-MAX_EVENTS)
    .reverse()
    .map((event) => {
      const detail = event.detail;
      const replay = typeof detail.replay === 'string' ? detail.replay : undefined;
      return `<tr><td>${escapeHtml(time(event.time))}</td><td>${escapeHtml(event['detail-type'])}${replay ? ` <span class="replay">replay ${escapeHtml(replay)}</span>` : ''}</td>
<td>${escapeHtml(detail.resultId ?? detail.transactionId ?? '–')}</td><td>${escapeHtml(detail.product ?? '–')}</td>
<td>${escapeHtml(detail.result ?? detail.reason ?? '–')}</td></tr>`;
    });
  const traceSection = trace
    ? `<section id="trace"><h2>Trace of ${escapeHtml(trace.resultId)}</h2>
<p>${escapeHtml(trace.status ?? 'not stored')} ${escapeHtml(trace.product ?? '')} ${escapeHtml(trace.result ?? '')}</p>
<table><thead><tr><th>time</th><th>step</th><th>source</th><th>attempt</th><th>outcome</th><th>reason</th><th>note</th><th>from</th></tr></thead><tbody>
${trace.steps
  .map(
    (step) =>
      `<tr><td>${escapeHtml(time(step.at))}</td><td>${escapeHtml(step.kind)}</td><td>${escapeHtml(step.source ?? '')}</td><td>${escapeHtml(step.attempt ?? '')}</td><td>${escapeHtml(step.outcome ?? '')}</td><td class="reason">${escapeHtml(step.reason ?? '')}</td><td>${escapeHtml(step.note ?? '')}</td><td>${escapeHtml(step.from)}</td></tr>`,
  )
  .join('\n')}
</tbody></table><p><a href="./">close</a></p></section>`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>idv local console</title>
<meta name="viewport" content="width=device-width">
<style nonce="${nonce}">
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}
h1{font-size:18px;margin:0 0 4px}h2{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#eee}.approved,.approved_rp,.approved_eu,.approved_non_eu,.stored{color:#1a7f37}.disapproved,.technical_reject,.unavailable{color:#b42318}
.reason{color:#b42318;font-family:monospace}.replay{background:#fde68a;padding:0 4px;border-radius:3px}
form{display:inline;margin:0}button{cursor:pointer}.muted{color:#666}img{max-width:320px;display:block;margin-top:4px}
</style></head><body>
<h1>idv local console</h1>
<p class="muted">This run only, on 127.0.0.1. Refreshes every 3 s. Images load only when you click them.</p>
${traceSection}
<section id="results"><h2>Results (${results.length})</h2>
<table><thead><tr><th>resultId (trace)</th><th>product</th><th>outcome</th><th>sections</th><th>reason codes</th><th>announced</th><th>stored</th><th>took</th><th>images</th></tr></thead>
<tbody>${resultRows.join('\n') || '<tr><td colspan="9" class="muted">none yet</td></tr>'}</tbody></table></section>
<section id="dlq"><h2>Dead-letter queue (${dlq.length})</h2>
${dlq.length > 0 ? `<form method="post" action="redrive">${csrf}<button>Redrive all</button></form>` : ''}
<table><thead><tr><th>resultId / message</th><th>kind</th><th>source</th><th>reason</th><th>receives</th><th>first attempt</th><th>last attempt</th><th></th></tr></thead>
<tbody>${dlqRows.join('\n') || '<tr><td colspan="8" class="muted">empty</td></tr>'}</tbody></table></section>
<section id="events"><h2>Events (last ${MAX_EVENTS})</h2>
<table><thead><tr><th>time</th><th>detail-type</th><th>id</th><th>product</th><th>outcome</th></tr></thead>
<tbody>${eventRows.join('\n') || '<tr><td colspan="5" class="muted">none yet</td></tr>'}</tbody></table></section>
<script nonce="${nonce}">
let paused = false;
document.addEventListener('click', (e) => {
  const link = e.target.closest('a.img');
  if (!link) return;
  e.preventDefault();
  paused = true;
  const img = document.createElement('img');
  img.alt = link.textContent;
  img.src = link.href;
  link.replaceWith(img);
});
setInterval(async () => {
  if (paused || document.hidden) return;
  const answer = await fetch(location.href, { credentials: 'same-origin' }).catch(() => undefined);
  if (!answer || !answer.ok) return;
  const next = new DOMParser().parseFromString(await answer.text(), 'text/html');
  for (const id of ['results', 'dlq', 'events']) {
    const now = document.getElementById(id);
    const fresh = next.getElementById(id);
    if (now && fresh) now.replaceWith(document.importNode(fresh, true));
  }
}, 3000);
</script>
</body></html>`;
  return { html, nonce };
}
