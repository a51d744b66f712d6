/**
 * Fake but well-formed personal data for simulated results, deterministic from a PRNG and clearly fake:
 * specimen names, document numbers starting with SPEC, BSNs starting with 9999, and machine-readable
 * zones with correct ICAO 9303 check digits.
 */
import type { MockTestValue as Outcome } from '../shared/api/enums';
import type { Prng } from './prng';

const GIVEN_NAMES = ['Willeke Liselotte', 'Erika', 'Jane', 'Jan Pieter', 'Max', 'Sanne'] as const;
const SURNAMES = ['Specimen', 'Mustermann', 'Voorbeeld', 'Testpersoon', 'Proefpersoon', 'Sample'] as const;
const EU = ['BEL', 'DEU', 'FRA', 'ITA', 'ESP', 'POL', 'PRT'] as const;
const NON_EU = ['USA', 'IND', 'TUR', 'MAR', 'BRA', 'UKR', 'GBR'] as const;

/** Residence permit types the simulator uses (the spec does not list them). */
export const RESIDENCE_PERMIT_TYPES = ['TYPE_I', 'TYPE_II', 'TYPE_III', 'TYPE_IV', 'TYPE_V'] as const;

export const DAY = 86_400_000;

/** `yyyy-MM-dd` of an epoch ms (§2.1: dates in results). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** ICAO 9303 check digit. */
export function checkDigit(s: string): string {
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
export function fakeBsn(prng: Prng): string {
  for (;;) {
    const digits = `9999${String(prng.int(10_000)).padStart(4, '0')}`;
    const sum = digits.split('').reduce((s, d, i) => s + Number(d) * (9 - i), 0);
    const last = sum % 11;
    if (last < 10) return digits + last;
  }
}

/** A fake person. */
export interface Person {
  givenNames: string;
  surname: string;
  gender: 'F' | 'M';
  dateOfBirth: string;
  bsn: string;
}

/** The epoch ms of the day `years` calendar years after the `yyyy-MM-dd` date `iso` (29 Feb → 1 Mar). */
export function yearsAfter(iso: string, years: number): number {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return Date.UTC(y + years, m - 1, d);
}

/** A fake adult person, aged 18 to 72 (whole calendar years) at `now`. */
export function fakePerson(prng: Prng, now: number): Person {
  const age = 18 + prng.int(55);
  const today = new Date(now);
  // Born between `age + 1` years and `age` years and a day before today: `age` on `now`, never younger.
  const born =
    Date.UTC(today.getUTCFullYear() - age, today.getUTCMonth(), today.getUTCDate()) -
    (1 + prng.int(364)) * DAY;
  return {
    givenNames: prng.pick(GIVEN_NAMES),
    surname: prng.pick(SURNAMES),
    gender: prng.next() < 0.5 ? 'F' : 'M',
    dateOfBirth: isoDate(born),
    bsn: fakeBsn(prng),
  };
}

/** A document number that is clearly fake: `SPEC#####`. */
export function fakeDocumentNumber(prng: Prng): string {
  return `SPEC${String(prng.int(100_000)).padStart(5, '0')}`;
}

export type DocumentKind = 'IDENTITY_CARD' | 'PASSPORT' | 'RESIDENCE_PERMIT';

/** The kind of identity document an outcome implies (§1 `mock-test` table). */
export function documentKindFor(outcome: Outcome): DocumentKind {
  if (outcome === 'APPROVED_EU' || outcome === 'APPROVED_NON_EU') return 'PASSPORT';
  return outcome === 'APPROVED_RP' ? 'RESIDENCE_PERMIT' : 'IDENTITY_CARD';
}

/**
 * The identity document of a result: of the kind that was uploaded (`uploaded`), else of the kind the
 * outcome implies; the outcome picks the issuer (an EU or non-EU country for APPROVED_EU/_NON_EU).
 */
export function documentFor(
  outcome: Outcome,
  prng: Prng,
  uploaded?: DocumentKind,
): { kind: DocumentKind; issuer: string; nationality: string } {
  const kind = uploaded ?? documentKindFor(outcome);
  if (kind === 'RESIDENCE_PERMIT') return { kind, issuer: 'NLD', nationality: prng.pick(NON_EU) };
  if (outcome === 'APPROVED_EU' || (outcome === 'APPROVED_NON_EU' && kind === 'PASSPORT')) {
    const c = prng.pick(outcome === 'APPROVED_EU' ? EU : NON_EU);
    return { kind, issuer: c, nationality: c };
  }
  return { kind, issuer: 'NLD', nationality: 'NLD' };
}

/**
 * The machine-readable zone: TD3 (two lines of 44) for passports, TD1 (three lines of 30) otherwise.
 * `failing` makes the document number's check digit wrong (the MRZ_CHECK_FAILED reason).
 */
export function mrzLines(
  kind: DocumentKind,
  p: Person,
  doc: { issuer: string; nationality: string },
  number: string,
  expiry: string,
  failing = false,
): string[] {
  const lines = validMrzLines(kind, p, doc, number, expiry);
  if (!failing) return lines;
  // The number's check digit sits after the 9-character number: TD3 line 2 at 9, TD1 line 1 at 14.
  const [line, at] = kind === 'PASSPORT' ? [1, 9] : [0, 14];
  const s = lines[line]!;
  const wrong = String((Number(s[at]) + 1) % 10);
  lines[line] = s.slice(0, at) + wrong + s.slice(at + 1);
  return lines;
}

function validMrzLines(
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
