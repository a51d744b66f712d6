/**
 * A result with a unique marker in every field, and the forms a marker can take in stored bytes: the
 * planted-marker scans of the erasure (test/integration/erasure-marker-scan.test.ts on the local data
 * directory, test/unit/erasure-marker-scan.test.ts on the SDK-level stores) plant and look for these.
 */
import { randomBytes } from 'node:crypto';

/** The fields that carry a marker: the polling record's, the result's personal fields and its blobs. */
export const MARKED_FIELDS = [
  'pollCustomerReference',
  'pollUserId',
  'fullName',
  'documentNumber',
  'personalNumber',
  'mrz',
  'address',
  'bodyCustomerReference',
  'imageBytes',
  'pdfBytes',
] as const;
export type MarkedField = (typeof MARKED_FIELDS)[number];

/**
 * Identifier fields a result event may carry (docs/erasure.md): the user id, and the customer reference
 * (the result's or the polling record's) where `eventCustomerReference` is `include`. The only markers an
 * event archive may hold.
 */
export const EVENT_IDENTIFIER_FIELDS: readonly MarkedField[] = [
  'pollUserId',
  'pollCustomerReference',
  'bodyCustomerReference',
];

/** Markers of one test run: `Mk<run><tag><field>Zq`, unique per result (`tag`) and run. */
export function markers(tag: string): (field: MarkedField) => string {
  const run = randomBytes(4).toString('hex');
  return (field) => `Mk${run}${tag}${field}Zq`;
}

/** The service's polling record of `resultId` with its markers. */
export function markedPollRecord(resultId: string, m: (field: MarkedField) => string) {
  return {
    resultId,
    transactionId: `tx-${resultId}`,
    product: 'RTW_PREMIUM',
    customerReference: m('pollCustomerReference'),
    userId: m('pollUserId'),
    completed: '2026-08-10T12:00:00Z',
  };
}

/** The result body of `resultId`: markers in its names and numbers, its image's and its PDF's bytes. */
export function markedResult(resultId: string, m: (field: MarkedField) => string) {
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(m('imageBytes'))]);
  const pdf = Buffer.from(`%PDF-1.4\n${m('pdfBytes')}\n%%EOF\n`);
  return {
    transactionId: `tx-${resultId}`,
    customerReference: m('bodyCustomerReference'),
    result: 'APPROVED',
    images: [{ data: jpeg.toString('base64'), documentType: 'PASSPORT', pageType: 'FRONT' }],
    files: [{ data: pdf.toString('base64'), documentType: 'TRANSACTION_REPORT' }],
    identity: {
      result: 'APPROVED',
      data: {
        name: { fullname: m('fullName') },
        documentNumber: m('documentNumber'),
        personalNumber: m('personalNumber'),
        mrz: m('mrz'),
        address: m('address'),
      },
    },
  };
}

/**
 * The two results of a scan: `erased` (markers tagged `E`), and `kept` (tagged `K`), the scan's positive
 * control; each result id's polling record and body carry its own markers.
 */
export function markedPair(erased: string, kept: string) {
  const ofErased = markers('E');
  const ofKept = markers('K');
  const byId = new Map([
    [erased, ofErased],
    [kept, ofKept],
  ]);
  /** The markers of `resultId`, one of the two. */
  const of = (resultId: string) => byId.get(resultId)!;
  return {
    ofErased,
    ofKept,
    of,
    pollRecord: (resultId: string) => markedPollRecord(resultId, of(resultId)),
    result: (resultId: string) => markedResult(resultId, of(resultId)),
  };
}

/** Names of the forms {@link formsOf} returns, in its order. */
export const FORM_NAMES = ['raw', 'hex', 'HEX', 'b64', 'b64+1', 'b64+2'] as const;

/** The forms a marker may take in stored bytes: raw, hex, and base64 at each of the three byte alignments. */
export function formsOf(text: string): Buffer[] {
  const raw = Buffer.from(text);
  const forms = [raw, Buffer.from(raw.toString('hex')), Buffer.from(raw.toString('hex').toUpperCase())];
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), raw]).toString('base64');
    // Leave out the characters the padding bytes or the bytes after the marker would change.
    const start = [0, 2, 3][pad]!;
    const end = Math.floor((pad + raw.length) / 3) * 4;
    forms.push(Buffer.from(encoded.slice(start, end)));
  }
  return forms;
}

/** `where: field (form)` for each marker found in `blobs` (name → bytes). */
export function markersIn(
  blobs: readonly { where: string; bytes: Buffer }[],
  m: (field: MarkedField) => string,
): string[] {
  const found: string[] = [];
  for (const field of MARKED_FIELDS) {
    const forms = formsOf(m(field));
    for (const blob of blobs) {
      const hit = forms.findIndex(
        (form) => blob.bytes.includes(form) || blob.where.includes(form.toString()),
      );
      if (hit >= 0) found.push(`${blob.where}: ${field} (${FORM_NAMES[hit]})`);
    }
  }
  return found;
}
