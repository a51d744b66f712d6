/**
 * The checks of a simulated result and how they follow from its outcome: which reasons a transaction can
 * be disapproved for (only checks its product runs), the identity's `verifications` (lost and stolen,
 * sanction list) and `documentValidation`. A test or operator can force what the six `mock-test` values
 * never produce through `ResultControls` (the `/__sim/transaction-controls` route, `idv simulator trigger
 * --checks …`): an UNKNOWN overall result, a check that HIT or was NOT_EXECUTED, NOT_APPLICABLE features.
 */
import {
  DOCUMENT_SECURITY_FEATURE_VALUES,
  type DocumentSecurityFeatureValue,
  type Product,
  type ResultValue,
  VERIFICATION_RESULTS,
  type VerificationResult,
} from '../shared/api/enums';
import type { Prng } from './prng';
import { DISAPPROVE_REASONS, type Reason, TECHNICAL_REJECT_REASONS } from './reasons';

/** The two verifications of §2.5 `identity.verifications`. */
export const CHECK_NAMES = ['lostAndStolen', 'sanctionList'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** The security features of §2.5 `identity.documentValidation`. */
export const SECURITY_FEATURES = [
  'backgroundPrint',
  'font',
  'hologram',
  'lamination',
  'mrzFont',
  'opticallyVariableInk',
  'perforation',
  'photoIntegration',
  'stamps',
] as const;
export type SecurityFeature = (typeof SECURITY_FEATURES)[number];

const IDENTITY_KINDS = ['PASSPORT', 'IDENTITY_CARD', 'RESIDENCE_PERMIT'] as const;

/** The reason a check that HIT puts in the result's messages. */
export const HIT_REASON: Readonly<Record<CheckName, string>> = {
  lostAndStolen: 'DOCUMENT_REPORTED_LOST_OR_STOLEN',
  sanctionList: 'SANCTION_LIST_HIT',
};

/** Sanction lists a HIT names in `foundOnLists` (names of well-known public lists). */
const SANCTION_LISTS = [
  'EU_CONSOLIDATED_FINANCIAL_SANCTIONS',
  'UN_SECURITY_COUNCIL_CONSOLIDATED',
  'OFAC_SDN',
];

/**
 * What a control forces on one transaction's result; everything else follows from its outcome. A check
 * forced to HIT makes the outcome DISAPPROVED with that check's reason.
 */
export interface ResultControls {
  /** UNKNOWN: the service reached no decision (no messages; sections read but not judged). */
  readonly result?: 'UNKNOWN';
  readonly checks?: Partial<Record<CheckName, VerificationResult>>;
  readonly documentValidation?: Partial<Record<SecurityFeature, DocumentSecurityFeatureValue>>;
  /** Adds the `digitalSigning` section of the digital signing product (not among the §1 products). */
  readonly digitalSigning?: boolean;
}

/** Whether `controls` force a check to HIT, which disapproves the transaction. */
export function forcesDisapproval(controls: ResultControls | undefined): boolean {
  return CHECK_NAMES.some((c) => controls?.checks?.[c] === 'HIT');
}

/** What a transaction's checks depend on. */
export interface CheckFacts {
  readonly product?: Product;
  readonly identity: boolean;
  /** A face is compared (faceVerify or faceLink section). */
  readonly face: boolean;
  readonly rightToWork: boolean;
  /** A VOG certificate is verified. */
  readonly vog: boolean;
  readonly controls?: ResultControls;
}

/**
 * Whether the product runs `check`. IDV_LITE verifies the document alone (no lookups in registers), so
 * both verifications are NOT_EXECUTED there; a control may switch a check off anywhere.
 */
export function runsCheck(facts: CheckFacts, check: CheckName): boolean {
  if (!facts.identity) return false;
  if (facts.controls?.checks?.[check] === 'NOT_EXECUTED') return false;
  return facts.product !== 'IDV_LITE';
}

/**
 * The messages of a result that is not approved: the reasons its controls' HITs imply, else one seeded
 * reason among those the transaction's checks can produce (FACE_MISMATCH only with a face check,
 * NO_RIGHT_TO_WORK only for RTW, a register reason only where that register is consulted).
 */
export function chooseMessages(prng: Prng, overall: ResultValue, facts: CheckFacts): string[] {
  if (overall === 'APPROVED' || overall === 'UNKNOWN') return [];
  if (overall === 'TECHNICAL_REJECT') return [prng.pick(TECHNICAL_REJECT_REASONS).key];
  const forced = CHECK_NAMES.filter((c) => facts.controls?.checks?.[c] === 'HIT').map((c) => HIT_REASON[c]);
  if (forced.length > 0) return forced;
  const pool = disapproveReasons(facts);
  return [prng.pick(pool).key];
}

function disapproveReasons(facts: CheckFacts): readonly Reason[] {
  const possible = (key: string): boolean => {
    switch (key) {
      case 'FACE_MISMATCH':
        return facts.face;
      case 'NO_RIGHT_TO_WORK':
        return facts.rightToWork;
      case HIT_REASON.lostAndStolen:
        return runsCheck(facts, 'lostAndStolen') && facts.controls?.checks?.lostAndStolen !== 'NO_HIT';
      case HIT_REASON.sanctionList:
        return runsCheck(facts, 'sanctionList') && facts.controls?.checks?.sanctionList !== 'NO_HIT';
      case 'SECURITY_FEATURES_MISSING':
        // A VOG certificate's features are checked too; a control may have fixed every feature.
        return (
          facts.vog ||
          (facts.identity &&
            IDENTITY_KINDS.every((kind) => missableFeatures(kind, facts.controls).length > 0))
        );
      default:
        // DOCUMENT_EXPIRED and MRZ_CHECK_FAILED: about the identity document's dates and MRZ.
        return facts.identity;
    }
  };
  const pool = DISAPPROVE_REASONS.filter((r) => possible(r.key));
  // A transaction with neither a document nor a face (none today) falls back on a manual decision.
  return pool.length > 0 ? pool : [{ key: 'MANUAL_REVIEW_REJECTED', translations: {} }];
}

/**
 * §2.5 `identity.verifications`, following from the messages and the checks the product runs; a
 * technically rejected capture is not looked up (NOT_EXECUTED unless a control says otherwise).
 */
export function verificationsOf(
  prng: Prng,
  messages: readonly string[],
  facts: CheckFacts,
  technical = false,
) {
  const verdict = (check: CheckName): VerificationResult => {
    // What a control forces wins, even where the product runs no lookup.
    const forced = facts.controls?.checks?.[check];
    if (forced !== undefined) return forced;
    if (technical || !runsCheck(facts, check)) return 'NOT_EXECUTED';
    return messages.includes(HIT_REASON[check]) ? 'HIT' : 'NO_HIT';
  };
  const lost = verdict('lostAndStolen');
  const sanction = verdict('sanctionList');
  const lists = sanction === 'HIT' ? [prng.pick(SANCTION_LISTS)] : [];
  return {
    sanctionList: {
      result: (sanction === 'HIT'
        ? 'DISAPPROVED'
        : sanction === 'NO_HIT'
          ? 'APPROVED'
          : 'UNKNOWN') as ResultValue,
      verificationResult: sanction,
      foundOnLists: lists,
    },
    lostAndStolen: {
      verificationResult: lost,
      messages: lost === 'HIT' ? [HIT_REASON.lostAndStolen] : [],
    },
  };
}

/** The security features a document kind carries (APPROVED when found); the others are NOT_APPLICABLE. */
export function carriedFeatures(kind: string): readonly SecurityFeature[] {
  return SECURITY_FEATURES.filter((f) => {
    if (f === 'stamps') return false;
    if (f === 'hologram') return kind !== 'PASSPORT';
    if (f === 'perforation') return kind === 'PASSPORT';
    return true;
  });
}

/** The carried features a control leaves to the check: those SECURITY_FEATURES_MISSING can name. */
export function missableFeatures(kind: string, controls: ResultControls | undefined): SecurityFeature[] {
  return carriedFeatures(kind).filter((f) => controls?.documentValidation?.[f] === undefined);
}

/**
 * §2.5 `identity.documentValidation`: APPROVED for each feature the document carries, NOT_APPLICABLE for
 * the others; the values a control forces win. `missing` (SECURITY_FEATURES_MISSING) marks one or two
 * carried features as not found — NOT_APPLICABLE, the only value §2.1 has besides APPROVED; a technically
 * rejected capture (`technical`) has no feature checked.
 */
export function documentValidationOf(
  kind: string,
  controls: ResultControls | undefined,
  options: { readonly missing?: Prng; readonly technical?: boolean } = {},
): Record<SecurityFeature, DocumentSecurityFeatureValue> {
  const carried = options.technical ? [] : carriedFeatures(kind);
  let notFound: SecurityFeature[] = [];
  if (options.missing && !options.technical) {
    const missable = missableFeatures(kind, controls);
    const first = options.missing.pick(missable);
    const second = options.missing.pick(missable);
    notFound = [first, second];
  }
  const values = Object.fromEntries(
    SECURITY_FEATURES.map((f) => [
      f,
      carried.includes(f) && !notFound.includes(f) ? 'APPROVED' : 'NOT_APPLICABLE',
    ]),
  ) as Record<SecurityFeature, DocumentSecurityFeatureValue>;
  return { ...values, ...controls?.documentValidation };
}

/** What is wrong with a controls body (names the field), or undefined. */
export function controlsProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (
      !['transactionId', 'outcome', 'result', 'checks', 'documentValidation', 'digitalSigning'].includes(key)
    ) {
      return `unknown field ${JSON.stringify(key.slice(0, 40))}`;
    }
  }
  if (v.result !== undefined && v.result !== 'UNKNOWN')
    return 'result must be UNKNOWN (the outcome sets the others)';
  if (v.digitalSigning !== undefined && typeof v.digitalSigning !== 'boolean')
    return 'digitalSigning must be a boolean';
  const map = (field: string, keys: readonly string[], values: readonly string[]) => {
    const m = v[field];
    if (m === undefined) return undefined;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return `${field} must be an object`;
    for (const [k, x] of Object.entries(m)) {
      if (!keys.includes(k))
        return `${field} has no key ${JSON.stringify(k.slice(0, 40))} (one of ${keys.join(', ')})`;
      if (typeof x !== 'string' || !values.includes(x))
        return `${field}.${k} must be one of ${values.join(', ')}`;
    }
    return undefined;
  };
  const problem =
    map('checks', CHECK_NAMES, VERIFICATION_RESULTS) ??
    map('documentValidation', SECURITY_FEATURES, DOCUMENT_SECURITY_FEATURE_VALUES);
  if (problem) return problem;
  if (v.result === 'UNKNOWN' && forcesDisapproval(v as ResultControls)) {
    return 'result UNKNOWN and a check that HIT contradict each other (a HIT disapproves)';
  }
  return undefined;
}
