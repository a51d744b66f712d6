import { inflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { resultSchema } from '../../shared/api/schemas';
import { imageDimensions, sniffContentType } from '../../shared/image';
import { FaultInjector } from '../../simulator/faults';
import { crc32, generateJpeg, generatePng, pooledImage } from '../../simulator/images';
import { buildPdf } from '../../simulator/pdf';
import { createPrng, deriveSeed } from '../../simulator/prng';
import { buildResult, type ResultInput } from '../../simulator/results';

/** Splits a PNG into chunks, checking each CRC. */
function pngChunks(bytes: Buffer): { type: string; data: Buffer }[] {
  const chunks: { type: string; data: Buffer }[] = [];
  let offset = 8;
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    const crc = bytes.readUInt32BE(offset + 8 + length);
    expect(crc32(bytes.subarray(offset + 4, offset + 8 + length))).toBe(crc);
    chunks.push({ type, data });
    offset += 12 + length;
  }
  return chunks;
}

const baseInput: ResultInput = {
  seed: 7,
  transactionId: 'tx-1',
  product: 'IDV_STANDARD',
  outcome: 'APPROVED',
  customerReference: 'ref-1',
  userId: 'api-user',
  sections: { identity: true },
  completedAt: Date.UTC(2026, 0, 15),
};

describe('simulator image generators', () => {
  it('generates a JPEG that decodes to the requested size', () => {
    // Prepare
    const width = 1024;
    const height = 640;

    // Act
    const bytes = generateJpeg(width, height, 3);

    // Assess
    expect(sniffContentType(bytes).contentType).toBe('image/jpeg');
    expect(imageDimensions(bytes)).toEqual({ width, height });
    const decoded = jpeg.decode(bytes, { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([width, height]);
    expect(bytes.length).toBeGreaterThan(100_000);
    expect(bytes.length).toBeLessThan(400_000);
  });

  it('generates a PNG with valid chunk CRCs and inflatable pixel data of the right size', () => {
    // Act
    const bytes = generatePng(420, 540, 5);

    // Assess
    expect(sniffContentType(bytes).contentType).toBe('image/png');
    expect(imageDimensions(bytes)).toEqual({ width: 420, height: 540 });
    const chunks = pngChunks(bytes);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const raw = inflateSync(chunks[1]!.data);
    expect(raw.length).toBe((420 * 3 + 1) * 540);
    expect(bytes.length).toBeGreaterThan(100_000);
    expect(bytes.length).toBeLessThan(400_000);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    // Act
    const a = generatePng(64, 64, 1);
    const b = generatePng(64, 64, 1);
    const c = generatePng(64, 64, 2);

    // Assess
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
  });

  it('caches pooled images so results reuse the same bytes', () => {
    // Act
    const first = pooledImage('portrait', 0);
    const again = pooledImage('portrait', 3);

    // Assess
    expect(again).toBe(first);
    expect(first.contentType).toBe('image/png');
  });
});

describe('simulator PDF', () => {
  it('builds a PDF with a correct cross-reference table', () => {
    // Act
    const pdf = buildPdf('Report (test)', ['line one', 'line two']);
    const text = pdf.toString('latin1');

    // Assess
    expect(text.startsWith('%PDF-')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    const startxref = Number(/startxref\n(\d+)\n/.exec(text)![1]);
    expect(text.slice(startxref, startxref + 4)).toBe('xref');
    const offsets = [...text.matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    offsets.forEach((off, i) => {
      expect(text.slice(off).startsWith(`${i + 1} 0 obj`)).toBe(true);
    });
  });
});

describe('simulator PRNG', () => {
  it('repeats for a seed and gives independent streams per label', () => {
    // Prepare
    const a = createPrng(deriveSeed(1, 'outcomes'));
    const b = createPrng(deriveSeed(1, 'outcomes'));
    const c = createPrng(deriveSeed(1, 'faults'));

    // Act
    const ha = a.hex(32);

    // Assess
    expect(ha).toBe(b.hex(32));
    expect(ha).not.toBe(c.hex(32));
    expect(ha).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('simulator results', () => {
  it('builds an IDV result with identity only, real images and a PDF report', () => {
    // Act
    const doc = buildResult(baseInput);

    // Assess
    expect(resultSchema.safeParse(doc).success).toBe(true);
    expect(doc.result).toBe('APPROVED');
    expect(doc.identity?.data?.documentType).toBe('IDENTITY_CARD');
    expect(doc.rightToWork).toBeUndefined();
    expect(doc.faceVerify).toBeUndefined();
    expect(doc.messages).toBeUndefined();
    for (const image of doc.images ?? []) {
      expect(sniffContentType(Buffer.from(image.data, 'base64')).contentType).toMatch(/^image\/(jpeg|png)$/);
    }
    const report = Buffer.from(doc.files![0]!.data, 'base64');
    expect(doc.files![0]!.documentType).toBe('TRANSACTION_REPORT');
    expect(sniffContentType(report).contentType).toBe('application/pdf');
  });

  it('adds rightToWork with the requested rule set and faceVerify when asked', () => {
    // Act
    const doc = buildResult({
      ...baseInput,
      product: 'RTW_PREMIUM',
      rtwType: 'RTW_UK',
      sections: { identity: true, rightToWork: true, faceVerify: true },
    });

    // Assess
    expect(doc.rightToWork?.rtwType).toBe('RTW_UK');
    expect(doc.rightToWork?.data?.vignetteDueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(doc.faceVerify?.result).toBe('APPROVED');
    expect(doc.images?.map((i) => i.documentType)).toEqual(
      expect.arrayContaining(['LIVE', 'COMPARE', 'PORTRAIT', 'IDENTITY_CARD']),
    );
  });

  it.each([
    ['APPROVED_EU', 'PASSPORT'],
    ['APPROVED_NON_EU', 'PASSPORT'],
    ['APPROVED_RP', 'RESIDENCE_PERMIT'],
  ] as const)('varies the document for %s', (outcome, documentType) => {
    // Act
    const doc = buildResult({ ...baseInput, outcome });

    // Assess
    expect(doc.identity?.data?.documentType).toBe(documentType);
    if (outcome === 'APPROVED_RP') {
      expect(doc.identity?.data?.residencePermitType).toBeTruthy();
      expect(doc.images?.some((i) => i.pageType === 'RESIDENCE_PERMIT_STICKERS')).toBe(true);
    } else {
      expect(doc.identity?.data?.issuingStateOrOrganization).not.toBe('NLD');
    }
  });

  it.each(['DISAPPROVED', 'TECHNICAL_REJECT'] as const)('carries messages for %s', (outcome) => {
    // Act
    const doc = buildResult({ ...baseInput, outcome });

    // Assess
    expect(doc.result).toBe(outcome);
    expect(doc.messages?.length).toBeGreaterThan(0);
    expect(doc.identity?.result).toBe(outcome);
  });

  it('is deterministic for a seed and uses clearly fake personal data', () => {
    // Act
    const a = buildResult(baseInput);
    const b = buildResult(baseInput);

    // Assess
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.identity?.data?.documentNumber).toMatch(/^SPEC\d{5}$/);
    expect(a.identity?.data?.personalGovernmentId).toMatch(/^9999\d{5}$/);
  });
});

describe('simulator faults', () => {
  it('repeats the same decisions for the same seed', () => {
    // Prepare
    const options = { serverErrorRate: 0.3, rateLimitRate: 0.2, dropRate: 0.1, truncateRate: 0.1 };
    const a = new FaultInjector(11);
    const b = new FaultInjector(11);
    a.set(options);
    b.set(options);

    // Act
    const da = Array.from({ length: 50 }, () => a.decide('/api/v2/poll').action);
    const db = Array.from({ length: 50 }, () => b.decide('/api/v2/poll').action);

    // Assess
    expect(da).toEqual(db);
    expect(new Set(da).size).toBeGreaterThan(2);
  });

  it('is off by default and honours the path filter', () => {
    // Prepare
    const f = new FaultInjector(1);

    // Act
    const off = f.decide('/api/v2/poll');
    f.set({ serverErrorRate: 1, paths: ['/api/v2/result'] });

    // Assess
    expect(off.action).toBe('none');
    expect(f.decide('/api/v2/poll').action).toBe('none');
    expect(f.decide('/api/v2/result/x').action).toBe('serverError');
  });
});
