/**
 * The hosted flow behind a secure link (§4.1 `link`), as an end user meets it:
 * `GET /link/{secureId}/{key}` is a page where a tester picks an outcome or uploads sample documents
 * (`simulator/samples.ts`), `POST /link/{secureId}/{key}/complete` completes the transaction as the real
 * flow would (upload webhook, then poll record and result webhook), and `GET /samples/{name}.jpg` serves
 * the samples. The form answers with a redirect to the link (which then shows the outcome); a JSON
 * request (what `idv simulator trigger` sends) gets `{ transactionId, resultId, result }`. A link's
 * routes answer only with its key in the path (`simulator/link-access.ts`): without it, 404 before a byte
 * of body is read. Bodies, fields and values are bounded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MOCK_TEST_VALUES } from '../shared/api/enums';
import { isJsonObject } from '../shared/json-object';
import { completedPage, errorPage, type LinkFacts, linkPage, messagingAppPage } from './hosted-page';
import { CODE, sendError, sendJson } from './http';
import { linkPath, openLink } from './link-access';
import { readBody } from './read-body';
import type { Outcome } from './result-sections';
import {
  DOCUMENT_SAMPLES,
  type DocumentChoice,
  DRIVING_LICENSE_SAMPLES,
  FACE_SAMPLES,
  sampleJpeg,
  sampleUpload,
} from './samples';
import type { SimulatorState, StoredResult, Transaction } from './state';

/** Largest form or JSON body of a completion; the form holds a few short fields. */
export const MAX_FORM_BYTES = 8 * 1024;
/** Most fields a completion may carry, and the longest name and value. */
const MAX_FIELDS = 16;
const MAX_FIELD_CHARS = 64;

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // The link's address goes to no other site; its own forms still carry their Origin (with no-referrer a
  // browser sends `Origin: null`, which the simulator's cross-origin check refuses).
  'referrer-policy': 'same-origin',
} as const;

const SAMPLE_PATH = /^\/samples\/([a-z0-9-]{1,40})\.jpg$/;

/** Whether `path` belongs to the hosted flow (answered before the API's body parsing and faults). */
export function isHostedFlowPath(path: string): boolean {
  return path.startsWith('/link/') || path.startsWith('/samples/') || path.startsWith('/whatsapp/');
}

/** What a tester submitted. */
export type Submission =
  | { readonly action: 'outcome'; readonly outcome: Outcome }
  | {
      readonly action: 'upload';
      readonly document?: DocumentChoice;
      readonly drivingLicense: boolean;
      readonly face: boolean;
      readonly outcome?: Outcome;
    };

/** A submission the flow refuses, with a message for the tester (never an echo of the input). */
export class HostedFlowError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HostedFlowError';
  }
}

/** Answers a hosted-flow request. */
export async function handleHostedFlow(
  state: SimulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = req.method ?? 'GET';
  const sampleMatch = SAMPLE_PATH.exec(url.pathname);
  if (sampleMatch) {
    const bytes = method === 'GET' ? sampleJpeg(sampleMatch[1]!) : undefined;
    if (!bytes) return page(res, 404, errorPage('Not found', 'There is no such sample image.'));
    res.writeHead(200, {
      'content-type': 'image/jpeg',
      'content-length': String(bytes.length),
      'cache-control': 'max-age=3600',
      'x-content-type-options': 'nosniff',
    });
    res.end(bytes);
    return;
  }
  // The link's key first: without it (or for an unknown link) the same 404, no body read.
  const opened = openLink(state, url.pathname);
  const wantsJson = (req.headers.accept ?? '').includes('application/json');
  if (!opened) {
    res.setHeader('connection', 'close');
    if (wantsJson) return sendError(res, { status: 404, code: CODE.notFound, message: 'NotFound' });
    return page(res, 404, errorPage('Link not found', 'This link does not exist or has expired.'));
  }
  const t = opened.transaction;
  if (opened.kind === 'whatsapp') {
    // §2.3 whatsappRedirectUrl: the hand-over to the messaging app.
    if (method !== 'GET') {
      res.setHeader('allow', 'GET');
      return page(res, 405, errorPage('Method not allowed', 'Open the link in a browser.'));
    }
    return page(res, 200, messagingAppPage(linkPath(t)));
  }
  const completing = opened.kind === 'complete';
  if (method !== (completing ? 'POST' : 'GET')) {
    res.setHeader('allow', completing ? 'POST' : 'GET');
    return page(res, 405, errorPage('Method not allowed', 'Open the link in a browser.'));
  }
  state.tick();
  if (!completing) {
    if (t.state === 'completed') return page(res, 200, completedPage(factsOf(t), resultOf(state, t)));
    return page(res, 200, linkPage(factsOf(t)));
  }
  try {
    const submission = parseSubmission(await readFields(req), t);
    const stored = completeFromBrowser(state, t, submission);
    if (wantsJson) {
      return sendJson(res, 200, {
        transactionId: t.transactionId,
        resultId: stored.resultId,
        result: stored.doc.result,
      });
    }
    // Post/redirect/get: a reload shows the outcome instead of posting again.
    res.writeHead(303, { location: linkPath(t), 'content-length': '0' });
    res.end();
  } catch (error) {
    if (!(error instanceof HostedFlowError)) throw error;
    if (wantsJson) {
      const code = error.status === 409 ? CODE.failedPrecondition : CODE.invalidArgument;
      return sendError(res, { status: error.status, code, message: error.message });
    }
    const body =
      error.status === 409
        ? completedPage(factsOf(t), resultOf(state, t))
        : linkPage(factsOf(t), error.message);
    return page(res, error.status, body);
  }
}

/**
 * Completes `t` with what the tester submitted, as the real flow would: the uploads join the
 * transaction (each sample with its bytes and type, no customerReference), the upload webhook goes out,
 * then the result is built, the poll record added and the result webhook sent.
 */
export function completeFromBrowser(
  state: SimulatorState,
  t: Transaction,
  submission: Submission,
): StoredResult {
  if (t.state === 'completed') throw new HostedFlowError(409, 'This verification is already complete.');
  if (submission.outcome !== undefined) t.outcome = submission.outcome;
  if (submission.action === 'upload') {
    const names = [
      ...(submission.document ? DOCUMENT_SAMPLES[submission.document] : []),
      ...(submission.drivingLicense ? DRIVING_LICENSE_SAMPLES : []),
      ...(submission.face ? FACE_SAMPLES : []),
    ];
    // Each page the flow collected, with its bytes: the result returns them (`result-images.ts`).
    t.uploads.push(...names.map(sampleUpload));
  }
  state.notifyUpload(t);
  return state.complete(t);
}

/** Whether a link of `product` asks its end user for a selfie (§2.5 `faceVerify`, `faceLink`). */
export function takesSelfie(product: string | undefined): boolean {
  return product === 'IDV_PREMIUM' || product === 'RTW_PREMIUM' || product === 'FACE_LINK';
}

function factsOf(t: Transaction): LinkFacts {
  return {
    linkPath: linkPath(t),
    transactionId: t.transactionId,
    product: t.product ?? 'IDV_STANDARD',
    ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
    additionalDocuments: t.additionalDocuments ?? [],
  };
}

/** The latest result of `t` while it is retained. */
function resultOf(state: SimulatorState, t: Transaction): { resultId?: string; result?: string } {
  const resultId = t.resultIds.at(-1);
  const stored = resultId === undefined ? undefined : state.results.get(resultId);
  return stored ? { resultId, ...(stored.doc.result ? { result: stored.doc.result } : {}) } : {};
}

function page(res: ServerResponse, status: number, html: string): void {
  const body = Buffer.from(html, 'utf8');
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': String(body.length) });
  res.end(body);
}

/** The fields of a form post or a flat JSON object, bounded in bytes, count and length. */
async function readFields(req: IncomingMessage): Promise<Map<string, string>> {
  const raw = await readBody(req, MAX_FORM_BYTES);
  if (raw === undefined) throw new HostedFlowError(413, `The form is larger than ${MAX_FORM_BYTES} bytes.`);
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const entries: [string, string][] = [];
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new HostedFlowError(400, 'The body is not valid JSON.');
    }
    if (!isJsonObject(parsed)) {
      throw new HostedFlowError(400, 'The body must be a JSON object.');
    }
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v === 'boolean') entries.push([k, v ? 'on' : '']);
      else if (typeof v === 'string') entries.push([k, v]);
      else throw new HostedFlowError(400, 'Each field must be a string or a boolean.');
    }
  } else if (type === 'application/x-www-form-urlencoded') {
    entries.push(...new URLSearchParams(raw.toString('utf8')));
  } else {
    throw new HostedFlowError(415, 'Send the form (application/x-www-form-urlencoded) or JSON.');
  }
  if (entries.length > MAX_FIELDS)
    throw new HostedFlowError(400, `The form has more than ${MAX_FIELDS} fields.`);
  if (entries.some(([k, v]) => k.length > MAX_FIELD_CHARS || v.length > MAX_FIELD_CHARS)) {
    throw new HostedFlowError(400, `A field name or value is longer than ${MAX_FIELD_CHARS} characters.`);
  }
  return new Map(entries);
}

function outcomeField(fields: Map<string, string>): Outcome | undefined {
  const value = fields.get('outcome') ?? '';
  if (value === '') return undefined;
  if (!(MOCK_TEST_VALUES as readonly string[]).includes(value)) {
    throw new HostedFlowError(400, `The outcome must be one of ${MOCK_TEST_VALUES.join(', ')}.`);
  }
  return value as Outcome;
}

/** Reads a submission for `t`; unknown fields are ignored, known ones checked against their values. */
export function parseSubmission(fields: Map<string, string>, t: Transaction): Submission {
  const action = fields.get('action') ?? 'outcome';
  const outcome = outcomeField(fields);
  if (action === 'outcome') {
    if (!outcome) throw new HostedFlowError(400, 'Pick an outcome.');
    return { action, outcome };
  }
  if (action !== 'upload') throw new HostedFlowError(400, 'The action must be outcome or upload.');
  const document = fields.get('document') || undefined;
  if (document !== undefined && !Object.hasOwn(DOCUMENT_SAMPLES, document)) {
    throw new HostedFlowError(
      400,
      `The document must be one of ${Object.keys(DOCUMENT_SAMPLES).join(', ')}.`,
    );
  }
  const face = fields.get('face') === 'on';
  const faceLink = t.product === 'FACE_LINK';
  if (faceLink && !face) throw new HostedFlowError(400, 'A FaceLink needs the selfie.');
  // §2.5: a face is verified only for premium products (and FaceLink): no other link takes a selfie.
  if (face && !faceLink && !takesSelfie(t.product)) {
    throw new HostedFlowError(
      400,
      'This product takes no selfie: only IDV_PREMIUM, RTW_PREMIUM and FACE_LINK do.',
    );
  }
  if (!faceLink && document === undefined) throw new HostedFlowError(400, 'Choose an identity document.');
  return {
    action,
    ...(faceLink ? {} : { document: document as DocumentChoice }),
    drivingLicense: !faceLink && fields.get('drivingLicense') === 'on',
    face,
    ...(outcome ? { outcome } : {}),
  };
}
