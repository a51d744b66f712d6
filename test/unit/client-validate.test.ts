import { describe, expect, it } from 'vitest';
import { secureLinkRequestSchema, vogRequestSchema } from '../../shared/api/schemas';
import { RequestValidationError } from '../../shared/client/errors';
import {
  encodeBulkCsv,
  validateFaceVerifyRequest,
  validateIdVerifyRequest,
  validateRequest,
} from '../../shared/client/validate';
import { checkBulkCsv, validateBulkSecureLinksRequest } from '../../shared/client/validate-bulk';
import { validateResultId } from '../../shared/client/validate-ids';
import { gifHeader, webpHeader } from '../support/image-headers';
import { pngHeaderOnly } from '../support/png';

/** Base64 of a PNG whose header says `width`×`height` (only the header is read). */
const pngBase64 = (width: number, height: number) => pngHeaderOnly(width, height).toString('base64');

/** Runs `fn`, expecting a RequestValidationError, and returns its issues. */
function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return (error as RequestValidationError).issues;
  }
  throw new Error('expected a RequestValidationError');
}

describe('validateRequest (strict schemas)', () => {
  it('names an unknown enum value, an unknown field and a bad language code', () => {
    // Act
    const issues = issuesOf(() =>
      validateRequest(
        secureLinkRequestSchema,
        { product: 'IDV_GOLD', languagePrefix: 'NL', colour: 'blue' },
        'secure link request',
      ),
    );

    // Assess
    expect(issues.map((i) => i.path).sort()).toEqual(['colour', 'languagePrefix', 'product']);
  });

  it('names nested required fields', () => {
    // Act
    const issues = issuesOf(() =>
      validateRequest(
        vogRequestSchema,
        {
          givenNames: 'A',
          surname: 'B',
          emailAddress: 'a@example.com',
          language: 'nl',
          vogRequest: { companyName: 'C', profiles: ['x'], profileType: 'GENERIC' },
        },
        'VOG request',
      ),
    );

    // Assess
    expect(issues.map((i) => i.path).sort()).toEqual(['vogRequest.jobTitle', 'vogRequest.profiles[0]']);
  });

  it('never echoes the rejected value in the message', () => {
    // Prepare
    const secret = 'not-an-email-but-personal@@';

    // Act
    const error = (() => {
      try {
        validateRequest(secureLinkRequestSchema, { emailAddress: secret }, 'secure link request');
      } catch (e) {
        return e as Error;
      }
    })();

    // Assess
    expect(error?.message).toContain('emailAddress');
    expect(error?.message).not.toContain(secret);
  });
});

describe('validateIdVerifyRequest', () => {
  it('accepts images of at least 640×480', () => {
    // Act
    const request = validateIdVerifyRequest({
      product: 'IDV_STANDARD',
      images: [{ type: 'PASSPORT', data: pngBase64(640, 480) }],
    });

    // Assess
    expect(request.images).toHaveLength(1);
  });

  it('rejects a small image, an unreadable image and a non-base64 image, naming each', () => {
    // Act
    const issues = issuesOf(() =>
      validateIdVerifyRequest({
        product: 'IDV_STANDARD',
        images: [
          { type: 'PASSPORT', data: pngBase64(639, 480) },
          { type: 'PASSPORT', data: Buffer.from('hello world!').toString('base64') },
        ],
      }),
    );
    const base64Issues = issuesOf(() =>
      validateIdVerifyRequest({ product: 'IDV_STANDARD', images: [{ data: 'data:image/png;base64,AAAA' }] }),
    );

    // Assess
    expect(issues).toEqual([
      { path: 'images[0].data', message: 'image is 639×480 pixels; the minimum is 640×480' },
      { path: 'images[1].data', message: expect.stringContaining('not a readable JPEG or PNG') },
    ]);
    expect(base64Issues[0]?.path).toBe('images[0].data');
    expect(base64Issues[0]?.message).toContain('base64');
  });

  it('accepts the formats the spec allows per type: WebP images, a PDF payroll tax statement', () => {
    // Prepare
    const pdf = Buffer.from('%PDF-1.4\n%simulated\n').toString('base64');

    // Act
    const request = validateIdVerifyRequest({
      product: 'RTW_STANDARD',
      images: [
        { type: 'PASSPORT', data: webpHeader(800, 600, 'VP8X').toString('base64') },
        { type: 'PAYROLL_TAX_STATEMENT', data: pdf },
      ],
    });

    // Assess
    expect(request.images).toHaveLength(2);
  });

  it('refuses a PDF for an image type and keeps the 640×480 rule for every image format', () => {
    // Act
    const issues = issuesOf(() =>
      validateIdVerifyRequest({
        product: 'IDV_STANDARD',
        images: [
          { type: 'PASSPORT', data: Buffer.from('%PDF-1.4\n').toString('base64') },
          { type: 'IDENTITY_CARD', data: gifHeader(320, 240).toString('base64') },
        ],
      }),
    );

    // Assess
    expect(issues).toEqual([
      { path: 'images[0].data', message: expect.stringContaining('is not a readable JPEG or PNG image') },
      { path: 'images[1].data', message: 'image is 320×240 pixels; the minimum is 640×480' },
    ]);
    expect(issues[0]?.message).not.toContain('PDF');
  });

  it('rejects a product that the identity upload does not accept', () => {
    // Act
    const issues = issuesOf(() =>
      validateIdVerifyRequest({ product: 'IDV_PREMIUM', images: [{ data: pngBase64(800, 600) }] }),
    );

    // Assess
    expect(issues.map((i) => i.path)).toEqual(['product']);
  });
});

describe('validateFaceVerifyRequest', () => {
  const image = (type: string) => ({ type, data: pngBase64(10, 10) });

  it('accepts one COMPARE and two LIVE images', () => {
    // Act
    const request = validateFaceVerifyRequest({
      transactionId: 't-1',
      images: [image('COMPARE'), image('LIVE'), image('LIVE')],
    });

    // Assess
    expect(request.images).toHaveLength(3);
  });

  it('requires a COMPARE image and at least two LIVE images', () => {
    // Act
    const issues = issuesOf(() =>
      validateFaceVerifyRequest({ transactionId: 't-1', images: [image('LIVE')] }),
    );

    // Assess
    expect(issues).toEqual([
      { path: 'images', message: 'must contain a COMPARE image' },
      { path: 'images', message: 'must contain at least 2 LIVE images' },
    ]);
  });
});

describe('bulk CSV', () => {
  const header = 'name;emailAddress;phoneNumber;language;customerReference';

  it('accepts the §4.2 columns with rows of five fields', () => {
    // Prepare
    const file = encodeBulkCsv(`${header}\r\nA;a@example.com;+31612345678;nl;ref-1\n`);

    // Act
    const request = validateBulkSecureLinksRequest({ product: 'IDV_STANDARD', file });

    // Assess
    expect(request.file).toBe(file);
  });

  it('names the rows with a wrong field count (a line that is not the exact header is a row)', () => {
    // Act
    const badHeader = checkBulkCsv('name,emailAddress\nA,b');
    const badRows = checkBulkCsv(`${header}\nA;a@example.com;;nl;r\nB;b@example.com;nl\nC;c;d;e;f;g`);
    const empty = checkBulkCsv(`${header}\n`);

    // Assess
    expect(badHeader.map((i) => i.message)).toEqual([
      'row 1 has 1 field, expected 5',
      'row 2 has 1 field, expected 5',
    ]);
    expect(badRows.map((i) => i.message)).toEqual([
      // Rows are numbered as the service numbers them: the header is row 1.
      'row 3 has 3 fields, expected 5',
      'row 4 has 6 fields, expected 5',
    ]);
    expect(empty[0]?.message).toBe('has no rows after the header');
  });

  it('accepts the file with or without the header row, recognised by its exact column names', () => {
    // Act
    const withHeader = checkBulkCsv(`${header}\nA;a@example.com;;nl;r`);
    const without = checkBulkCsv('A;a@example.com;;nl;r');
    const otherCase = checkBulkCsv(`${header.toUpperCase()}\nA;a@example.com;;nl;r`);

    // Assess
    expect(withHeader).toEqual([]);
    expect(without).toEqual([]);
    // Not the exact names: a person row like any other (the simulator then refuses its e-mail address).
    expect(otherCase).toEqual([]);
    expect(checkBulkCsv('')).toEqual([{ path: 'file', message: 'has no rows' }]);
  });

  it('reads quoted fields with ;, a byte order mark and CRLF line ends', () => {
    // Prepare
    const text = `\uFEFF${header}\r\n"Jansen; J.";j@example.com;;nl;"ref ""1"""\r\n\r\nB;b@example.com;;en;r2\r\n`;

    // Act
    const issues = checkBulkCsv(text);
    const encoded = Buffer.from(encodeBulkCsv(text), 'base64').toString('utf8');

    // Assess
    expect(issues).toEqual([]);
    expect(encoded.startsWith(header)).toBe(true);
  });

  it('names the row of an unclosed quote without quoting the value', () => {
    // Act
    const issues = checkBulkCsv(`${header}\nA;a@example.com;;nl;r\n"Secret name;b@example.com;;nl;r\n`);

    // Assess
    expect(issues).toEqual([{ path: 'file', message: 'row 3: a quoted field is not closed' }]);
    expect(JSON.stringify(issues)).not.toContain('Secret');
  });

  it('rejects FACE_LINK as a bulk product', () => {
    // Act
    const issues = issuesOf(() =>
      validateBulkSecureLinksRequest({ product: 'FACE_LINK', file: encodeBulkCsv(`${header}\na;b;c;d;e`) }),
    );

    // Assess
    expect(issues.map((i) => i.path)).toEqual(['product']);
  });
});

describe('validateResultId', () => {
  it.each([
    'abc',
    'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    'A_b-9',
    // Ids another implementation of the service may use.
    'res.2026:0001',
    'R~42',
    'acct@eu+7=',
    'a..b',
    'x'.repeat(256),
  ])('accepts %s', (id) => {
    expect(validateResultId(id)).toBe(id);
  });

  it.each([
    '',
    '..',
    '.hidden',
    '-x',
    'a/b',
    'a\\b',
    'a b',
    'a\tb',
    'a\nb',
    'a?b',
    'a#b',
    '%2e%2e',
    'a\u0000b',
    'ü',
    'x'.repeat(257),
  ])('rejects %j', (id) => {
    expect(issuesOf(() => validateResultId(id))).toEqual([{ path: 'resultId', message: expect.any(String) }]);
  });
});
