/** `idv secure-link create` (§4.1) and `idv secure-link bulk` (§4.2). */
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { MockTestValue } from '../../shared/api/enums';
import type { SecureLinkResponse } from '../../shared/api/schemas';
import type { SecureLinkInput } from '../../shared/client/client';
import { encodeBulkCsv } from '../../shared/client/validate';
import { UsageError } from './errors';
import { compact, flag, list, readInput, required, str } from './flags';
import type { CliCommand } from './types';

const CREATE = 'secure-link create';
const BULK = 'secure-link bulk';

/** `idv secure-link create`: one link; `--disable-communication` returns the link instead of sending it. */
export const secureLinkCreateCommand: CliCommand = {
  path: ['secure-link', 'create'],
  summary: 'create a secure link for an end user (POST /api/v2/secureidlink)',
  usage:
    'secure-link create [--product P] [--name N] [--email E] [--phone +31…] [--whatsapp-phone +31…] ' +
    '[--mode MODE_…]… [--disable-communication] [--language xx] [--otp] [--additional-document T]… ' +
    '[--customer-reference R] [--user-id U] [--linked-transaction-id T] [--rtw-type RTW_…] [--mock-test VALUE] ' +
    '[--qr-out FILE]',
  help: `  --product P                  FACE_LINK, IDV_LITE, IDV_STANDARD, IDV_PREMIUM, RTW_STANDARD, RTW_PREMIUM
                               (optional, as in the spec: without it the account's default applies)
  --name N                     full name used in the communication
  --email E                    e-mail address that receives the link
  --phone +31…                 phone number (international format), used with MODE_SMS
  --whatsapp-phone +31…        phone number for MODE_WHATSAPP
  --mode MODE                  MODE_EMAIL, MODE_SMS or MODE_WHATSAPP (repeatable)
  --disable-communication      return link and QR code instead of sending them; the output shows
                               the QR code's size, not its base64 (use --qr-out to save it)
  --qr-out FILE                with --disable-communication: write the QR code to FILE (PNG, mode
                               0600) and print the link and the file name instead of the image
  --language xx                two-letter lowercase language code
  --otp                        ask the end user for a one-time password
  --additional-document T      additional document to capture (repeatable)
  --customer-reference R       your reference, returned in poll records and results
  --user-id U                  a user defined for the account
  --linked-transaction-id T    required with FACE_LINK: the original premium transaction
  --rtw-type T                 RTW_NL, RTW_BE, RTW_DE or RTW_UK
  --mock-test VALUE            staging only: APPROVED, APPROVED_EU, APPROVED_NON_EU, APPROVED_RP,
                               DISAPPROVED, TECHNICAL_REJECT (a mocked result is produced at once)`,
  options: {
    product: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    phone: { type: 'string' },
    'whatsapp-phone': { type: 'string' },
    mode: { type: 'string', multiple: true },
    'disable-communication': { type: 'boolean' },
    language: { type: 'string' },
    otp: { type: 'boolean' },
    'additional-document': { type: 'string', multiple: true },
    'customer-reference': { type: 'string' },
    'user-id': { type: 'string' },
    'linked-transaction-id': { type: 'string' },
    'rtw-type': { type: 'string' },
    'mock-test': { type: 'string' },
    'qr-out': { type: 'string' },
  },
  async run(ctx) {
    const qrOut = str(ctx, 'qr-out');
    if (qrOut !== undefined && !flag(ctx, 'disable-communication')) {
      throw new UsageError(
        '--qr-out needs --disable-communication: the service returns the QR code only then',
        CREATE,
      );
    }
    const modes = list(ctx, 'mode');
    const documents = list(ctx, 'additional-document');
    const request = compact({
      product: str(ctx, 'product'),
      name: str(ctx, 'name'),
      emailAddress: str(ctx, 'email'),
      phoneNumber: str(ctx, 'phone'),
      whatsappPhoneNumber: str(ctx, 'whatsapp-phone'),
      communicationModes: modes.length > 0 ? modes : undefined,
      disableCommunication: flag(ctx, 'disable-communication'),
      languagePrefix: str(ctx, 'language'),
      enableOneTimePassword: flag(ctx, 'otp'),
      additionalDocuments: documents.length > 0 ? documents : undefined,
      customerReference: str(ctx, 'customer-reference'),
      userId: str(ctx, 'user-id'),
      linkedTransactionId: str(ctx, 'linked-transaction-id'),
      rtwType: str(ctx, 'rtw-type'),
    }) as SecureLinkInput;
    const mockTest = str(ctx, 'mock-test') as MockTestValue | undefined;
    // Open the QR file before anything is sent: an unwritable path must not cost a created link.
    const qrFile = qrOut === undefined ? undefined : await openQrFile(resolve(ctx.io.cwd, qrOut), qrOut);
    let response: SecureLinkResponse;
    try {
      response = await ctx.client().createSecureLink(request, mockTest === undefined ? {} : { mockTest });
    } catch (error) {
      await qrFile?.discard();
      throw error;
    }
    return qrFile ? qrFile.save(response) : withQrSummary(response);
  },
};

/**
 * The response as a terminal shows it: `qrCode` (13 KB of base64 for a person to scroll past) becomes
 * a short note of its size; the link stays. `--qr-out` saves the image itself.
 */
function withQrSummary(response: SecureLinkResponse): SecureLinkResponse {
  if (response.qrCode === undefined) return response;
  const bytes = Buffer.from(response.qrCode, 'base64').length;
  return { ...response, qrCode: `PNG image, ${bytes} bytes (not shown; save it with --qr-out FILE)` };
}

/** The `--qr-out` file, created (mode 0600: the link opens a person's onboarding) before the request. */
async function openQrFile(path: string, given: string) {
  let handle: FileHandle;
  try {
    handle = await open(path, 'w', 0o600);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new UsageError(`cannot write the file of --qr-out ${given} (${code})`, CREATE);
  }
  return {
    /** Writes the QR code and returns the response with `qrCodeFile` in place of the image. */
    async save(response: SecureLinkResponse): Promise<Record<string, unknown>> {
      const { qrCode, ...rest } = response;
      if (qrCode === undefined) {
        await this.discard();
        return { ...rest, qrCodeFile: null };
      }
      await handle.writeFile(Buffer.from(qrCode, 'base64'));
      await handle.close();
      return { ...rest, qrCodeFile: path };
    },
    /** Closes and removes the file (the request failed or brought no QR code). */
    async discard(): Promise<void> {
      await handle.close();
      await unlink(path).catch(() => undefined);
    },
  };
}

/** `idv secure-link bulk`: many links from a semicolon CSV file, base64-encoded by the CLI. */
export const secureLinkBulkCommand: CliCommand = {
  path: ['secure-link', 'bulk'],
  summary: 'create secure links from a CSV file (POST /api/v2/secureidlinks)',
  usage: 'secure-link bulk --product P --csv FILE',
  help: `  --product P    IDV_LITE, IDV_STANDARD, IDV_PREMIUM, RTW_STANDARD, RTW_PREMIUM
  --csv FILE     semicolon-separated CSV, UTF-8, one person per row with the columns
                 name;emailAddress;phoneNumber;language;customerReference
                 A header row is optional: a first line of exactly those names is the header.
                 Quote a field that holds ; or a line break ("Jansen; J."); a byte order mark and
                 CRLF line ends are fine. Errors name rows by their line in the file (with a
                 header, the first person is row 2); blank lines are not counted.`,
  options: { product: { type: 'string' }, csv: { type: 'string' } },
  async run(ctx) {
    const product = required(ctx, 'product', BULK);
    const csv = await readInput(ctx, required(ctx, 'csv', BULK), 'csv');
    return ctx.client().createBulkSecureLinks({
      product: product as 'IDV_LITE',
      file: encodeBulkCsv(csv.toString('utf8')),
    });
  },
};
