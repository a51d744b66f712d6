/**
 * The HTML of the hosted flow (`simulator/hosted-flow.ts`): plain forms that post back to the
 * simulator, no script, no resource from elsewhere (the page's Content-Security-Policy allows images
 * from the simulator only). Every value shown is escaped with `escapeHtml`.
 */
import { MOCK_TEST_VALUES, type MockTestValue } from '../shared/api/enums';
import {
  DOCUMENT_SAMPLES,
  type DocumentChoice,
  DRIVING_LICENSE_SAMPLES,
  FACE_SAMPLES,
  sample,
} from './samples';

/** `s` safe in HTML text and in a quoted attribute. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** At most `max` characters of a caller-supplied string, marked when cut. */
function bounded(s: string, max = 80): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** What §1 says each `mock-test` outcome gives. */
const OUTCOME_TEXT: Readonly<Record<MockTestValue, string>> = {
  APPROVED: 'an approved result (Dutch identity card)',
  APPROVED_EU: 'a result with a passport of an EU country',
  APPROVED_NON_EU: 'a result with a passport of a non-EU country',
  APPROVED_RP: 'a result with a residence permit',
  DISAPPROVED: 'a disapproved result',
  TECHNICAL_REJECT: 'a rejected result',
};

const DOCUMENT_TEXT: Readonly<Record<DocumentChoice, string>> = {
  passport: 'Passport',
  'identity-card': 'Identity card (front and back)',
  'residence-permit': 'Residence permit (front and back)',
};

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{font:16px/1.45 system-ui,sans-serif;margin:0;background:#eef1f5;color:#1b2430;overflow-wrap:anywhere}
header{background:#1f3a5f;color:#fff;padding:14px 28px}
header h1{font-size:20px;margin:0}header p{margin:2px 0 0;opacity:.85;font-size:14px}
main{max-width:1120px;margin:20px auto;padding:0 20px}
img{max-width:100%;height:auto}
.facts{background:#fff;border-radius:8px;padding:10px 16px;margin-bottom:16px;font-size:14px}
.facts dt{float:left;clear:left;width:150px;color:#5a6675}.facts dd{margin:0 0 2px 150px;word-break:break-all}
.cols{display:flex;gap:16px;align-items:flex-start}
section{background:#fff;border-radius:8px;padding:14px 18px;flex:1;min-width:0}
section h2{font-size:17px;margin:0 0 8px}
label{display:block;margin:4px 0;cursor:pointer}
.docs{display:flex;flex-wrap:wrap;gap:10px}
.doc{border:1px solid #c9d1db;border-radius:6px;padding:6px;width:150px;max-width:100%;font-size:13px}
.doc img{display:block;width:136px;border-radius:3px;margin-bottom:4px}
.faces{width:236px}.faces img{width:70px;display:inline-block;margin-right:2px}
.extras{display:flex;flex-wrap:wrap;gap:10px;margin-top:10px}
select{max-width:100%}
button{margin-top:10px;background:#1f6feb;color:#fff;border:0;border-radius:6px;padding:8px 16px;font-size:15px;cursor:pointer;max-width:100%}
.note{font-size:13px;color:#5a6675}
.error{background:#fde8e8;border:1px solid #e0a0a0;border-radius:6px;padding:8px 12px;margin-bottom:12px}
.done{background:#e6f4ea;border:1px solid #9bc9a8;border-radius:8px;padding:12px 16px}
@media (max-width:760px){
header{padding:12px 16px}main{margin:12px auto;padding:0 10px}
.cols{flex-direction:column}section{width:100%;padding:12px 12px}
.facts{padding:8px 12px}.facts dt{float:none;width:auto}.facts dd{margin:0 0 6px}
.doc{width:calc(50% - 5px)}.doc img{width:100%}
.faces{width:100%}.faces img{width:calc(33% - 4px)}
button{width:100%;padding:12px 16px;font-size:16px}
}
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title)}</h1><p>Service simulator: synthetic documents, no real person, no real verification.</p></header>
<main>${body}</main></body></html>
`;
}

/** What the page says about the transaction behind the link. */
export interface LinkFacts {
  /** The link's own path, with its key (`simulator/link-access.ts`): where its forms post. */
  readonly linkPath: string;
  readonly transactionId: string;
  readonly product: string;
  readonly customerReference?: string;
  readonly additionalDocuments: readonly string[];
}

function factsList(f: LinkFacts, extra: [string, string][] = []): string {
  const rows: [string, string][] = [
    ['Product', f.product],
    ['Transaction', f.transactionId],
    ...(f.customerReference !== undefined
      ? ([['Customer reference', bounded(f.customerReference)]] as [string, string][])
      : []),
    ...(f.additionalDocuments.length > 0
      ? ([['Also asked for', bounded(f.additionalDocuments.join(', '), 200)]] as [string, string][])
      : []),
    ...extra,
  ];
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

function thumb(name: string): string {
  const s = sample(name);
  return `<img src="/samples/${escapeHtml(s.name)}.jpg" alt="${escapeHtml(s.label)}" width="${s.width}" height="${s.height}">`;
}

function outcomeOptions(withDefault: boolean): string {
  const first = withDefault ? '<option value="">decided by the simulator</option>' : '';
  return first + MOCK_TEST_VALUES.map((o) => `<option value="${o}">${o}</option>`).join('');
}

/** The page of an open link: pick an outcome, or upload sample documents. */
export function linkPage(f: LinkFacts, error?: string): string {
  const action = `${f.linkPath}/complete`;
  const faceLink = f.product === 'FACE_LINK';
  const premium = f.product === 'IDV_PREMIUM' || f.product === 'RTW_PREMIUM';
  const wantsLicence = f.additionalDocuments.includes('DRIVING_LICENSE');
  const outcomes = MOCK_TEST_VALUES.map(
    (o, i) =>
      `<label><input type="radio" name="outcome" value="${o}"${i === 0 ? ' checked' : ''}> <b>${o}</b> — ${escapeHtml(OUTCOME_TEXT[o])}</label>`,
  ).join('');
  const documents = faceLink
    ? '<p class="note">A FaceLink needs only the selfie.</p>'
    : `<div class="docs">${(Object.keys(DOCUMENT_SAMPLES) as DocumentChoice[])
        .map(
          (d, i) =>
            `<label class="doc"><input type="radio" name="document" value="${d}"${i === 0 ? ' checked' : ''}> ${escapeHtml(DOCUMENT_TEXT[d])}${DOCUMENT_SAMPLES[d].map(thumb).join('')}</label>`,
        )
        .join('')}</div>
  <div class="extras"><label class="doc"><input type="checkbox" name="drivingLicense" value="on"${wantsLicence ? ' checked' : ''}> Driving licence (front and back), as an additional document${DRIVING_LICENSE_SAMPLES.map(thumb).join('')}</label>`;
  const closeExtras = faceLink ? '' : '</div>';
  // Only a premium link or a FaceLink takes a selfie (§2.5 faceVerify, faceLink).
  const face =
    premium || faceLink
      ? `<label class="doc faces"><input type="checkbox" name="face" value="on" checked> Selfie and two live frames<br>${FACE_SAMPLES.map(thumb).join('')}</label>`
      : '';
  return layout(
    'Verify your identity',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}${factsList(f)}
<div class="cols">
<section><h2>Pick an outcome</h2>
<form id="outcome-form" method="post" action="${action}"><input type="hidden" name="action" value="outcome">
${outcomes}
<button type="submit">Complete with this outcome</button></form>
<p class="note">Completes the transaction at once: the upload webhook, then the poll record and the result webhook.</p></section>
<section><h2>Upload sample documents</h2>
<form id="upload-form" method="post" action="${action}"><input type="hidden" name="action" value="upload">
${documents}
${face}${closeExtras}
<label>Outcome <select name="outcome">${outcomeOptions(true)}</select></label>
<button type="submit">Upload and complete</button></form>
<p class="note">The result's images keep the type and page of each uploaded sample.</p></section>
</div>`,
  );
}

/** The page of a completed link. */
export function completedPage(f: LinkFacts, result: { resultId?: string; result?: string }): string {
  return layout(
    'Verification complete',
    `<div class="done" role="status"><b>Thank you.</b> The verification is complete${result.result ? `: <b id="result">${escapeHtml(result.result)}</b>` : ''}.</div>
${factsList(f, result.resultId ? [['Result id', result.resultId]] : [])}`,
  );
}

/** A page for an error (unknown link, bad form), with its message. */
export function errorPage(title: string, message: string): string {
  return layout(title, `<p class="error" role="alert">${escapeHtml(message)}</p>`);
}

/**
 * The page behind a secure link's `whatsappRedirectUrl` (§2.3): where the service would hand over to the
 * messaging app with the message prefilled, the simulator shows that message and its link (`href`, the
 * link's own path with its key).
 */
export function messagingAppPage(href: string): string {
  return layout(
    'Messaging app (simulated)',
    `<p>The messaging app would open here with this message ready to send:</p>
<blockquote>Please verify your identity: <a id="link" href="${escapeHtml(href)}">${escapeHtml(href)}</a></blockquote>
<p class="note">Nothing is sent: the simulator has no messaging app.</p>`,
  );
}
