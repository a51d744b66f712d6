/** POST /api/v2/secureidlink (§4.1) and POST /api/v2/secureidlinks (§4.2). */
import { randomBytes } from 'node:crypto';
import { PATHS } from '../../shared/api/enums';
import { bulkSecureLinksRequestSchema, secureLinkRequestSchema } from '../../shared/api/schemas';
import { badRequest, exact, type Route, validate } from '../http';
import { generatePng } from '../images';
import { prngUuid } from '../prng';
import type { SimulatorState } from '../state';
import { checkUser, mockValue } from './common';

/** The secure link routes. */
export function secureLinkRoutes(state: SimulatorState): Route[] {
  let qrCodeBase64: string | undefined;
  const qrCode = (): string => {
    qrCodeBase64 ??= generatePng(116, 116, 7, 'document').toString('base64');
    return qrCodeBase64;
  };

  return [
    {
      method: 'POST',
      pattern: exact(PATHS.secureLink),
      auth: 'bearer',
      handler: ({ req, body }) => {
        const mock = mockValue(state, req);
        const input = validate(secureLinkRequestSchema, body);
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
        const secureId = prngUuid(state.idPrng);
        const t = state.newTransaction('secureLink', {
          product,
          userId,
          secureId,
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          ...(input.rtwType !== undefined ? { rtwType: input.rtwType } : {}),
          ...(mock !== undefined ? { mock } : {}),
        });
        if (product === 'FACE_LINK') {
          t.faceLinkToken = randomBytes(24).toString('base64url');
          state.faceLinkTokens.set(t.faceLinkToken, t.transactionId);
        }
        if (mock) state.complete(t);
        else state.schedule(t, { withUpload: true });
        const link = `${state.baseUrl}/link/${secureId}`;
        const modes = input.communicationModes ?? [];
        return {
          secureId,
          transactionId: t.transactionId,
          ...(input.disableCommunication ? { link, qrCode: qrCode() } : {}),
          ...(modes.includes('MODE_WHATSAPP')
            ? { whatsappRedirectUrl: `${state.baseUrl}/whatsapp/${secureId}` }
            : {}),
          communicationsResponse: input.disableCommunication
            ? []
            : modes
                .filter((m) => m !== 'MODE_WHATSAPP')
                .map((communicationMode) => ({ communicationMode, status: 'SENT' })),
        };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.bulkSecureLinks),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(bulkSecureLinksRequestSchema, body);
        const rows = Buffer.from(input.file, 'base64')
          .toString('utf8')
          .split(/\r?\n/)
          .map((line, index) => ({ line, row: index + 1 }))
          .filter(({ line }) => line.trim() !== '');
        // A header row naming the columns is optional.
        if (rows[0] && /^name;emailaddress;/i.test(rows[0].line.trim())) rows.shift();
        const errors: { message: string; row: number }[] = [];
        for (const { line, row } of rows) {
          const cols = line.split(';').map((c) => c.trim());
          const [name, emailAddress, phoneNumber, language, customerReference] = cols;
          if (cols.length !== 5) errors.push({ message: 'expected 5 columns', row });
          else if (!name) errors.push({ message: 'name is required', row });
          else if (!emailAddress && !phoneNumber)
            errors.push({ message: 'emailAddress or phoneNumber is required', row });
          else if (emailAddress && !/^[^@\s;]+@[^@\s;]+\.[^@\s;]+$/.test(emailAddress)) {
            errors.push({ message: 'emailAddress is not an e-mail address', row });
          } else if (phoneNumber && !/^\+[1-9][0-9]{6,14}$/.test(phoneNumber)) {
            errors.push({ message: 'phoneNumber is not in international format', row });
          } else if (language && !/^[a-z]{2}$/.test(language)) {
            errors.push({ message: 'language must be a two-letter lowercase code', row });
          } else {
            const t = state.newTransaction('bulk', {
              product: input.product,
              secureId: prngUuid(state.idPrng),
              ...(customerReference ? { customerReference } : {}),
            });
            state.schedule(t, { withUpload: true });
          }
        }
        if (rows.length === 0) errors.push({ message: 'the file has no rows', row: 0 });
        return { success: errors.length === 0, errors };
      },
    },
  ];
}
