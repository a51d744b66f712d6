/**
 * Builds the result documents (§2.5) of simulated transactions: the sections a product implies, fake
 * but well-formed personal data (deterministic from a seed and clearly fake: specimen names, document
 * numbers starting with SPEC, BSNs starting with 9999), pooled real images and a real PDF report.
 */
import type { MockTestValue, Product, ResultValue, RtwType } from '../shared/api/enums';
import type { VerificationResultDocument } from '../shared/api/schemas';
import { type ImageSlot, pooledImage } from './images';
import { buildPdf } from './pdf';
import { createPrng, type Prng } from './prng';
import { DISAPPROVE_REASONS, TECHNICAL_REJECT_REASONS } from './reasons';

/** The outcome of a transaction: one of the `mock-test` values, also used for the seeded mix. */
export type Outcome = MockTestValue;

/** Weighted outcome mix of transactions completed without `mock-test`. */
const OUTCOME_MIX: readonly [Outcome, number][] = [
  ['APPROVED', 45],
  ['APPROVED_EU', 12],
  ['APPROVED_NON_EU', 10],
  ['APPROVED_RP', 8],
  ['DISAPPROVED', 15],
  ['TECHNICAL_REJECT', 10],
];

/** A seeded draw from the outcome mix. */
export function drawOutcome(prng: Prng): Outcome {
  let r = prng.next() * OUTCOME_MIX.reduce((s, [, w]) => s + w, 0);
  for (const [outcome, weight] of OUTCOME_MIX) {
    r -= weight;
    if (r < 0) return outcome;
  }
  return 'APPROVED';
}

/** What a result is built from. */
export interface ResultInput {
  readonly seed: number;
  readonly transactionId: string;
  /** Product of the transaction; absent for a face-verify-only SDK transaction. */
  readonly product?: Product;
  readonly outcome: Outcome;
  readonly customerReference?: string;
  readonly userId?: string;
  readonly rtwType?: RtwType;
  /** Sections to include. */
  readonly sections: {
    readonly identity?: boolean;
    readonly rightToWork?: boolean;
    readonly faceVerify?: boolean;
    readonly faceLink?: boolean;
    readonly vog?: VogInput;
  };
  /** `customerReference` of each uploaded image, in upload order (results echo them). */
  readonly imageCustomerReferences?: readonly (string | undefined)[];
  readonly completedAt: number;
}

/** What a VOG request supplied. */
export interface VogInput {
  readonly createdAt: number;
  readonly givenNames: string;
  readonly surname: string;
  readonly companyName: string;
  readonly profiles: readonly string[];
}

const GIVEN_NAMES = ['Willeke Liselotte', 'Erika', 'Jane', 'Jan Pieter', 'Max', 'Sanne'] as const;
const SURNAMES = ['Specimen', 'Mustermann', 'Voorbeeld', 'Testpersoon', 'Proefpersoon', 'Sample'] as const;
const EU = ['BEL', 'DEU', 'FRA', 'ITA', 'ESP', 'POL', 'PRT'] as const;
const NON_EU = ['USA', 'IND', 'TUR', 'MAR', 'BRA', 'UKR', 'GBR'] as const;
const RESIDENCE_PERMIT_TYPES = ['TYPE_I', 'TYPE_II', 'TYPE_III', 'TYPE_IV', 'TYPE_V'] as const;

const DAY = 86_400_000;

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** ICAO 9303 check digit. */
function checkDigit(s: string): string {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const v = c === '<' ? 0 : /[0-9]/.test(c) ? Number(c) : c.charCodeAt(0) - 55;
    sum += v * weights[i % 3]!;
  }
  return String(sum % 10);
}

function mrzName(s: string): string {
  return s.toUpperCase().replace(/[^A-Z]+/g, '<');
}

function mrzDate(iso: string): string {
  return iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
}

/** A 9-digit BSN that passes the eleven-test and starts with 9999 (never issued to a person). */
function fakeBsn(prng: Prng): string {
  for (;;) {
    const digits = `9999${String(prng.int(10_000)).padStart(4, '0')}`;
    const sum = digits.split('').reduce((s, d, i) => s + Number(d) * (9 - i), 0);
    const last = sum % 11;
    if (last < 10) return digits + last;
  }
}

interface Person {
  givenNames: string;
  surname: string;
  gender: 'F' | 'M';
  dateOfBirth: string;
  bsn: string;
}

function fakePerson(prng: Prng, now: number): Person {
  const age = 18 + prng.int(55);
  return {
    givenNames: prng.pick(GIVEN_NAMES),
    surname: prng.pick(SURNAMES),
    gender: prng.next() < 0.5 ? 'F' : 'M',
    dateOfBirth: isoDate(now - age * 365.25 * DAY - prng.int(365) * DAY),
    bsn: fakeBsn(prng),
  };
}

type DocumentKind = 'IDENTITY_CARD' | 'PASSPORT' | 'RESIDENCE_PERMIT';

function documentFor(
  outcome: Outcome,
  prng: Prng,
): { kind: DocumentKind; issuer: string; nationality: string } {
  switch (outcome) {
    case 'APPROVED_EU': {
      const c = prng.pick(EU);
      return { kind: 'PASSPORT', issuer: c, nationality: c };
    }
    case 'APPROVED_NON_EU': {
      const c = prng.pick(NON_EU);
      return { kind: 'PASSPORT', issuer: c, nationality: c };
    }
    case 'APPROVED_RP':
      return { kind: 'RESIDENCE_PERMIT', issuer: 'NLD', nationality: prng.pick(NON_EU) };
    default:
      return { kind: 'IDENTITY_CARD', issuer: 'NLD', nationality: 'NLD' };
  }
}

function mrzLines(
  kind: DocumentKind,
  p: Person,
  doc: { issuer: string; nationality: string },
  number: string,
  expiry: string,
): string[] {
  const dob = mrzDate(p.dateOfBirth);
  const exp = mrzDate(expiry);
  const name = `${mrzName(p.surname)}<<${mrzName(p.givenNames)}`;
  if (kind === 'PASSPORT') {
    const l1 = `P<${doc.issuer}${name}`.padEnd(44, '<').slice(0, 44);
    const numberField = number.padEnd(9, '<');
    const body = `${numberField}${checkDigit(numberField)}${doc.nationality}${dob}${checkDigit(dob)}${p.gender}${exp}${checkDigit(exp)}`;
    const optional = '<'.repeat(14);
    const composite = `${numberField}${checkDigit(numberField)}${dob}${checkDigit(dob)}${exp}${checkDigit(exp)}${optional}${checkDigit(optional)}`;
    return [l1, `${body}${optional}${checkDigit(optional)}${checkDigit(composite)}`];
  }
  const code = kind === 'IDENTITY_CARD' ? 'I<' : 'IR';
  const numberField = number.padEnd(9, '<');
  const l1 = `${code}${doc.issuer}${numberField}${checkDigit(numberField)}`.padEnd(30, '<');
  const l2head = `${dob}${checkDigit(dob)}${p.gender}${exp}${checkDigit(exp)}${doc.nationality}`.padEnd(
    29,
    '<',
  );
  const composite = l1.slice(5, 30) + l2head.slice(0, 7) + l2head.slice(8, 15) + l2head.slice(18, 29);
  return [l1, l2head + checkDigit(composite), name.padEnd(30, '<').slice(0, 30)];
}

function sectionRefs(input: ResultInput): string[] {
  return input.customerReference ? [input.customerReference] : [];
}

/** Builds the complete result document of a transaction. Cheap: images come from the shared pool. */
export function buildResult(input: ResultInput): VerificationResultDocument {
  const prng = createPrng(input.seed);
  const variant = prng.int(1000);
  const approved = input.outcome.startsWith('APPROVED');
  const overall: ResultValue = approved ? 'APPROVED' : (input.outcome as ResultValue);
  const reasonPool = input.outcome === 'DISAPPROVED' ? DISAPPROVE_REASONS : TECHNICAL_REJECT_REASONS;
  const messages = approved ? [] : [prng.pick(reasonPool).key];
  const refs = sectionRefs(input);
  const section = (result: ResultValue = overall) => ({
    result,
    messages: result === 'APPROVED' ? [] : messages,
    customerReferences: refs,
  });
  const doc: VerificationResultDocument = {
    transactionId: input.transactionId,
    ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
    result: overall,
    ...(approved ? {} : { messages }),
  };
  const images: NonNullable<VerificationResultDocument['images']> = [];
  const imageRefs = input.imageCustomerReferences ?? [];
  const addImage = (slot: ImageSlot, documentType: string, pageType: string, offset = 0) => {
    const img = pooledImage(slot, variant + offset);
    const ref = imageRefs[images.length];
    images.push({
      data: img.base64,
      documentType,
      pageType,
      metadata: { contentType: img.contentType, width: img.width, height: img.height },
      ...(ref !== undefined ? { customerReference: ref } : {}),
    });
  };

  if (input.sections.identity) {
    const person = fakePerson(prng, input.completedAt);
    const d = documentFor(input.outcome, prng);
    const issued = input.completedAt - (30 + prng.int(3000)) * DAY;
    const expiry =
      input.outcome === 'DISAPPROVED' ? input.completedAt - (1 + prng.int(300)) * DAY : issued + 3652 * DAY;
    const number = `SPEC${String(prng.int(100_000)).padStart(5, '0')}`;
    const technical = input.outcome === 'TECHNICAL_REJECT';
    doc.identity = {
      ...section(),
      ...(technical
        ? {}
        : {
            data: {
              name: {
                fullname: `${person.givenNames} ${person.surname}`,
                givenNames: person.givenNames,
                surname: person.surname,
              },
              dateOfBirth: person.dateOfBirth,
              dateOfIssuance: isoDate(issued),
              dateOfExpiry: isoDate(expiry),
              documentType: d.kind,
              documentSubType:
                d.kind === 'PASSPORT'
                  ? 'NATIONAL_PASSPORT'
                  : d.kind === 'IDENTITY_CARD'
                    ? 'NATIONAL_IDENTITY_CARD'
                    : 'RESIDENCE_PERMIT_CARD',
              documentNumber: number,
              gender: person.gender,
              issuingStateOrOrganization: d.issuer,
              nationality: d.nationality,
              personalGovernmentId: d.issuer === 'NLD' ? person.bsn : '',
              placeOfBirth: 'Specimenstad',
              ...(d.kind === 'RESIDENCE_PERMIT'
                ? { residencePermitType: prng.pick(RESIDENCE_PERMIT_TYPES) }
                : {}),
              mrzLines: mrzLines(d.kind, person, d, number, isoDate(expiry)),
            },
            documentValidation: {
              backgroundPrint: 'APPROVED',
              font: 'APPROVED',
              hologram: d.kind === 'PASSPORT' ? 'NOT_APPLICABLE' : 'APPROVED',
              lamination: 'APPROVED',
              mrzFont: 'APPROVED',
              opticallyVariableInk: 'APPROVED',
              perforation: d.kind === 'PASSPORT' ? 'APPROVED' : 'NOT_APPLICABLE',
              photoIntegration: 'APPROVED',
              stamps: 'NOT_APPLICABLE',
            },
            verifications: {
              sanctionList: { result: 'APPROVED', verificationResult: 'NO_HIT', foundOnLists: [] },
              lostAndStolen: { verificationResult: 'NO_HIT', messages: [] },
            },
          }),
    };
    addImage('documentFront', d.kind, 'FRONT');
    if (!technical) {
      if (d.kind === 'IDENTITY_CARD') addImage('documentBack', d.kind, 'BACK');
      if (d.kind === 'RESIDENCE_PERMIT') addImage('documentBack', d.kind, 'RESIDENCE_PERMIT_STICKERS');
      addImage('portrait', 'PORTRAIT', 'ANY');
      if (d.kind !== 'PASSPORT') addImage('signature', 'SIGNATURE', 'ANY');
    }

    if (input.sections.rightToWork) {
      const rtwType = input.rtwType ?? 'RTW_NL';
      const start = input.completedAt + 7 * DAY;
      const due = input.completedAt + (180 + prng.int(900)) * DAY;
      const rtwResult: ResultValue = overall;
      const data: Record<string, string> = {
        startDate: isoDate(start),
        endDate: isoDate(due),
        dueDate: isoDate(due),
      };
      if (rtwType === 'RTW_NL') {
        Object.assign(data, {
          vsFromDate: isoDate(issued),
          vsDueDate: isoDate(expiry),
          twvFromDate: isoDate(issued),
          twvDueDate: isoDate(expiry),
          personalGovernmentId: person.bsn,
          employmentRemark:
            d.kind === 'RESIDENCE_PERMIT' ? 'Arbeid vrij toegestaan, TWV niet vereist' : 'Geen beperkingen',
        });
      } else if (rtwType === 'RTW_BE') {
        data.attachmentDueDate = isoDate(due);
      } else if (rtwType === 'RTW_UK') {
        Object.assign(data, {
          vignetteDueDate: isoDate(due),
          conditions: 'No restrictions on work',
          details: 'Share code not required for this document',
        });
      }
      doc.rightToWork = { ...section(rtwResult), rtwType, ...(technical ? {} : { data }) };
    }
  }

  if (input.sections.faceVerify) {
    const faceResult: ResultValue =
      input.outcome === 'DISAPPROVED' && messages[0] === 'FACE_MISMATCH'
        ? 'DISAPPROVED'
        : approved
          ? 'APPROVED'
          : overall;
    doc.faceVerify = section(faceResult);
    addImage('live', 'LIVE', 'ANY');
    addImage('live', 'LIVE', 'ANY', 1);
    addImage('live', 'COMPARE', 'ANY', 2);
  }

  if (input.sections.faceLink) {
    doc.faceLink = {
      ...section(),
      gpsLocation: { latitude: 52 + prng.int(1000) / 1000, longitude: 4 + prng.int(2000) / 1000 },
    };
    addImage('live', 'LIVE', 'ANY');
  }

  if (input.sections.vog) {
    const v = input.sections.vog;
    doc.vog = {
      createdAt: new Date(v.createdAt).toISOString(),
      status: 'COMPLETED',
      ...section(),
      ...(overall === 'TECHNICAL_REJECT'
        ? {}
        : {
            data: {
              givenNames: v.givenNames,
              surname: v.surname,
              dateOfBirth: fakePerson(prng, input.completedAt).dateOfBirth,
              dateOfIssuance: isoDate(input.completedAt - DAY),
              companyName: v.companyName,
              profiles: [...v.profiles],
            },
          }),
    };
    addImage('documentFront', 'PAPER', 'ANY');
  }

  doc.images = images;
  doc.files = [
    { data: transactionReport(input, overall).toString('base64'), documentType: 'TRANSACTION_REPORT' },
  ];
  return doc;
}

/** The PDF report: identifiers and outcome only, no personal data. */
function transactionReport(input: ResultInput, overall: ResultValue): Buffer {
  return buildPdf('Transaction report (simulated)', [
    `Transaction: ${input.transactionId}`,
    `Product: ${input.product ?? 'FACE_VERIFY'}`,
    `Result: ${overall}`,
    `Completed: ${new Date(input.completedAt).toISOString()}`,
    'Generated by the idv-pipeline service simulator. Not a real verification.',
  ]);
}
