/**
 * The coherence rules of simulated results, written once: what each reason is about (`REASON_SECTIONS`,
 * which the section builders of `result-sections.ts` follow), how the overall result follows the
 * sections (`overallOf`), and `COHERENCE_RULES`, the table simulator/README.md shows. `coherenceViolations`
 * (in `coherence-check.ts`) checks a built result against every rule; the property test
 * `test/unit/simulator-coherence.test.ts` runs it over more than 10,000 generated results.
 */
import type { ResultValue } from '../shared/api/enums';
import type { VerificationResultDocument } from '../shared/api/schemas';

/** The sections of a result that carry their own verdict (§2.5). */
export type SectionName =
  | 'identity'
  | 'rightToWork'
  | 'faceVerify'
  | 'faceLink'
  | 'vog'
  | 'drivingLicense'
  | 'payrollTaxStatement'
  | 'additionalDocuments'
  | 'digitalSigning';

const EVERY_SECTION: readonly SectionName[] = [
  'identity',
  'rightToWork',
  'faceVerify',
  'faceLink',
  'vog',
  'drivingLicense',
  'payrollTaxStatement',
  'additionalDocuments',
  'digitalSigning',
];

/**
 * The sections a DISAPPROVED reason disapproves: the section of the document or check it is about, and
 * `rightToWork`, which rests on the identity document. A reason never disapproves another document's
 * section (`drivingLicense`, `payrollTaxStatement`, `additionalDocuments`, `digitalSigning` stay
 * APPROVED under an identity document's reason). A manual rejection is about the whole transaction.
 */
export const REASON_SECTIONS: Readonly<Record<string, readonly SectionName[]>> = {
  DOCUMENT_EXPIRED: ['identity', 'rightToWork'],
  MRZ_CHECK_FAILED: ['identity', 'rightToWork'],
  SECURITY_FEATURES_MISSING: ['identity', 'rightToWork', 'vog'],
  DOCUMENT_REPORTED_LOST_OR_STOLEN: ['identity', 'rightToWork'],
  SANCTION_LIST_HIT: ['identity', 'rightToWork'],
  FACE_MISMATCH: ['faceVerify', 'faceLink'],
  NO_RIGHT_TO_WORK: ['rightToWork'],
  WATERMARK_INVALID: ['faceVerify'],
  MANUAL_REVIEW_REJECTED: EVERY_SECTION,
};

/** Whether the DISAPPROVED reason `reason` is about `section`. */
export function reasonDisapproves(reason: string, section: SectionName): boolean {
  return (REASON_SECTIONS[reason] ?? []).includes(section);
}

/** Result values from best to worst: the overall result is the worst of the sections'. */
const SEVERITY: readonly ResultValue[] = ['APPROVED', 'UNKNOWN', 'DISAPPROVED', 'TECHNICAL_REJECT'];

/** The verdicts (`result`, `messages`) of every section present in `doc`, additional documents included. */
export function sectionVerdicts(
  doc: VerificationResultDocument,
): { section: SectionName; result?: string; messages?: readonly string[] }[] {
  const out: { section: SectionName; result?: string; messages?: readonly string[] }[] = [];
  for (const section of EVERY_SECTION) {
    const value = (doc as Record<string, unknown>)[section];
    if (value === undefined) continue;
    const entries = Array.isArray(value) ? value : [value];
    for (const e of entries as { result?: string; messages?: string[] }[]) {
      out.push({
        section,
        ...(e.result !== undefined ? { result: e.result } : {}),
        ...(e.messages !== undefined ? { messages: e.messages } : {}),
      });
    }
  }
  return out;
}

/**
 * The overall `result` and `messages` that follow from the sections: the worst section result
 * (TECHNICAL_REJECT, then DISAPPROVED, UNKNOWN, APPROVED) and, for DISAPPROVED or TECHNICAL_REJECT, every
 * message of the sections with that result, each once, in section order.
 */
export function overallOf(doc: VerificationResultDocument): { result: ResultValue; messages?: string[] } {
  const verdicts = sectionVerdicts(doc);
  let worst = 0;
  for (const v of verdicts)
    worst = Math.max(worst, SEVERITY.indexOf((v.result ?? 'APPROVED') as ResultValue));
  const result = SEVERITY[worst]!;
  if (result !== 'DISAPPROVED' && result !== 'TECHNICAL_REJECT') return { result };
  const messages = [...new Set(verdicts.filter((v) => v.result === result).flatMap((v) => v.messages ?? []))];
  return { result, messages };
}

/** One rule: an id the checker reports and the sentence simulator/README.md shows. */
export interface CoherenceRule {
  readonly id: string;
  readonly rule: string;
}

/** Every rule a simulated result keeps; `coherenceViolations` checks each by its id. */
export const COHERENCE_RULES: readonly CoherenceRule[] = [
  {
    id: 'reason-owner',
    rule: 'A DISAPPROVED section carries only reasons about it (REASON_SECTIONS): a document or register reason on `identity` (and `rightToWork`, which rests on it), FACE_MISMATCH on `faceVerify`/`faceLink`, WATERMARK_INVALID on `faceVerify`, NO_RIGHT_TO_WORK on `rightToWork`, SECURITY_FEATURES_MISSING on `vog` for a certificate.',
  },
  {
    id: 'reason-reach',
    rule: "A reason never disapproves another document's section: under a DISAPPROVED result, every section none of whose reasons is about it stays APPROVED (`drivingLicense`, `payrollTaxStatement`, `additionalDocuments`, `digitalSigning` under an identity reason).",
  },
  {
    id: 'section-messages',
    rule: 'A section has non-empty `messages` exactly when its result is DISAPPROVED or TECHNICAL_REJECT; a TECHNICAL_REJECT reason (IMAGE_TOO_BLURRY, …) is about the capture: every section is TECHNICAL_REJECT with it.',
  },
  {
    id: 'overall',
    rule: 'The overall result is the worst section result (TECHNICAL_REJECT, DISAPPROVED, UNKNOWN, APPROVED); its `messages` (only for DISAPPROVED or TECHNICAL_REJECT) are the messages of the sections with that result, each once.',
  },
  {
    id: 'verifications',
    rule: '`identity.verifications`: `lostAndStolen` HIT exactly with DOCUMENT_REPORTED_LOST_OR_STOLEN, `sanctionList` HIT (result DISAPPROVED, a list in `foundOnLists`) exactly with SANCTION_LIST_HIT; NO_HIT means APPROVED, NOT_EXECUTED UNKNOWN; IDV_LITE and a technically rejected capture run no lookup (NOT_EXECUTED), unless a control forces a value.',
  },
  {
    id: 'document-dates',
    rule: "Each document is issued before it expires and after its holder was born; `DOCUMENT_EXPIRED` exactly when the identity document's own `dateOfExpiry` is before the day of `completed`; a driving licence, VOG or statement is never dated after `completed` (issuance, signing) and a licence is valid on that day.",
  },
  {
    id: 'holder-age',
    rule: "The holder is an adult (18 or older on the day of `completed`) and holds a driving licence issued on or after their 18th birthday; every section names the identity document's holder (name, date of birth, personal government id).",
  },
  {
    id: 'security-features',
    rule: "`documentValidation`: every feature the document kind carries (passport: perforation, no hologram; cards: hologram, no perforation; never stamps) is APPROVED and the others NOT_APPLICABLE, except that SECURITY_FEATURES_MISSING marks one or two carried features NOT_APPLICABLE (not found), a technically rejected capture has none checked (all NOT_APPLICABLE), and a control's forced values win.",
  },
  {
    id: 'mrz',
    rule: '`mrzLines` repeat the data (document number, date of birth, date of expiry, nationality, gender, document code) and every ICAO 9303 check digit is right, except with MRZ_CHECK_FAILED, which makes one wrong.',
  },
  {
    id: 'presence',
    rule: "Sections appear only where §2.5 says: `identity` for identity uploads and IDV/RTW links, `rightToWork` for RTW products, `faceVerify` only for the face verify endpoint or IDV_PREMIUM/RTW_PREMIUM, `faceLink` for FACE_LINK, `vog` for a VOG request, `payrollTaxStatement` for exactly one statement, `drivingLicense` when the driving license check applies (RTW, the customer setting, a DRIVING_LICENSE document), `digitalSigning` for the digital signing product (its control); `mock-test` keeps §1's content.",
  },
  {
    id: 'section-fields',
    rule: "Every section keeps the fields §2.5 requires, TECHNICAL_REJECT included (`identity.data`, `documentValidation`, `verifications`, every section's `data`); only `vog.data` is optional (absent for TECHNICAL_REJECT). No field outside §2.5, every enum value from §2.1, every date `yyyy-MM-dd`.",
  },
  {
    id: 'images',
    rule: 'Each uploaded image comes back first, in upload order, with its own bytes, `documentType`, page and `customerReference`; a picture is generated only for a page nobody uploaded and carries no `customerReference`; an uploaded payroll tax statement is the `PAYROLL_TAX_STATEMENT` file, byte for byte.',
  },
];
