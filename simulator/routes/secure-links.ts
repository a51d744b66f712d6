/** POST /api/v2/secureidlink (§4.1) and POST /api/v2/secureidlinks (§4.2). */
import { randomBytes } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import QRCode from 'qrcode';
import { BULK_CSV_PARSE_OPTIONS, bulkCsvRows, describeCsvError } from '../../shared/api/bulk-csv';
import { type BulkSecureLinkProduct, PATHS } from '../../shared/api/enums';
import { bulkSecureLinksRequestSchema, secureLinkRequestSchema } from '../../shared/api/schemas';
import { BULK_BODY_BYTES, badRequest, exact, type Route } from '../http';
import { linkPath, newLinkCapability, whatsappPath } from '../link-access';
import type { SimulatorState } from '../state';
import { checkUser, mockValue } from './common';

/** The secure link routes. */
export function secureLinkRoutes(state: SimulatorState): Route[] {
  return [
    {
      method: 'POST',
      pattern: exact(PATHS.secureLink),
      auth: 'bearer',
      scope: 'productapi.secureidlink.write',
      handler: async ({ req, body }) => {
        const mock = mockValue(state, req);
        const input = state.read(secureLinkRequestSchema, body, 'secure link');
        const userId = checkUser(state, input.userId);
        const product = input.product ?? 'IDV_STANDARD';
        if (product === 'FACE_LINK') {
          const linked = state.transactions.get(input.linkedTransactionId ?? '');
          if (!linked || (linked.product !== 'IDV_PREMIUM' && linked.product !== 'RTW_PREMIUM')) {
            throw badRequest(
              'linkedTransactionId',
              'must be the transactionId of an IDV_PREMIUM or RTW_PREMIUM request',
            );
          }
        }
        const capability = newLinkCapability();
        const { secureId } = capability;
        const t = state.newTransaction('secureLink', {
          product,
          userId,
          ...capability,
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          ...(input.rtwType !== undefined ? { rtwType: input.rtwType } : {}),
          ...(mock !== undefined ? { mock } : {}),
          ...(input.additionalDocuments ? { additionalDocuments: [...input.additionalDocuments] } : {}),
          ...(input.linkedTransactionId ? { linkedTransactionId: input.linkedTransactionId } : {}),
        });
        if (product === 'FACE_LINK') {
          t.faceLinkToken = randomBytes(24).toString('base64url');
          state.faceLinkTokens.set(t.faceLinkToken, t.transactionId);
        }
        if (mock) state.complete(t);
        else state.schedule(t, { withUpload: true });
        // The link carries its key: the secureId alone opens nothing (`simulator/link-access.ts`).
        const link = `${state.baseUrl}${linkPath(t)}`;
        const modes = input.communicationModes ?? [];
        return {
          secureId,
          transactionId: t.transactionId,
          ...(input.disableCommunication ? { link, qrCode: await qrCodeOf(link) } : {}),
          ...(modes.includes('MODE_WHATSAPP')
            ? { whatsappRedirectUrl: `${state.baseUrl}${whatsappPath(t)}` }
            : {}),
          communicationsResponse: input.disableCommunication
            ? []
            : modes
                .filter((m) => m !== 'MODE_WHATSAPP')
                .map((communicationMode) => ({ communicationMode, status: state.communicationStatus })),
        };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.bulkSecureLinks),
      maxBodyBytes: BULK_BODY_BYTES,
      auth: 'bearer',
      scope: 'productapi.secureidlink.write',
      handler: ({ body }) => {
        const input = state.read(bulkSecureLinksRequestSchema, body, 'bulk secure links');
        return createBulkLinks(state, Buffer.from(input.file, 'base64').toString('utf8'), input.product);
      },
    },
  ];
}

/** §2.3: the QR code holding the link, as a base64 PNG. */
async function qrCodeOf(link: string): Promise<string> {
  const png = await QRCode.toBuffer(link, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 4 });
  return png.toString('base64');
}

interface BulkRow {
  record: string[];
  info: { records: number };
}

/**
 * One link per valid row of the bulk CSV (read as in `shared/api/bulk-csv.ts`, the header row optional);
 * `errors` names each bad row by its number in the file.
 */
function createBulkLinks(
  state: SimulatorState,
  text: string,
  product: BulkSecureLinkProduct,
): { success: boolean; errors: { message: string; row: number }[] } {
  let rows: BulkRow[];
  try {
    rows = parseCsv(text, BULK_CSV_PARSE_OPTIONS) as unknown as BulkRow[];
  } catch (error) {
    const { code, records } = error as { code?: string; records?: number };
    return { success: false, errors: [{ message: describeCsvError(code), row: (records ?? 0) + 1 }] };
  }
  // The header row is optional, recognised by its exact column names (one rule with the client's).
  rows = bulkCsvRows(rows);
  const errors: { message: string; row: number }[] = [];
  for (const { record, info } of rows) {
    const row = info.records;
    const problem = bulkRowProblem(record);
    if (problem) {
      errors.push({ message: problem, row });
      continue;
    }
    const customerReference = record[4];
    const t = state.newTransaction('bulk', {
      product,
      ...newLinkCapability(),
      ...(customerReference ? { customerReference } : {}),
    });
    state.schedule(t, { withUpload: true });
  }
  if (rows.length === 0) errors.push({ message: 'the file has no rows', row: 0 });
  return { success: errors.length === 0, errors };
}

/** What is wrong with one bulk row (§4.2 columns), or undefined. */
function bulkRowProblem(cols: string[]): string | undefined {
  const [name, emailAddress, phoneNumber, language] = cols;
  if (cols.length !== 5) return 'expected 5 columns';
  if (!name) return 'name is required';
  if (!emailAddress && !phoneNumber) return 'emailAddress or phoneNumber is required';
  if (emailAddress && !/^[^@\s;]+@[^@\s;]+\.[^@\s;]+$/.test(emailAddress)) {
    return 'emailAddress is not an e-mail address';
  }
  if (phoneNumber && !/^\+[1-9][0-9]{6,14}$/.test(phoneNumber)) {
    return 'phoneNumber is not in international format';
  }
  if (language && !/^[a-z]{2}$/.test(language)) return 'language must be a two-letter lowercase code';
  return undefined;
}
