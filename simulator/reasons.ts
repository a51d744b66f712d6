/**
 * Reject and disapprove reasons served by GET /api/v2/reasons; the `messages` of simulated results use
 * these keys, so a consumer can translate every message it sees.
 */

/** One reason with its translations (the shape of §2.7). */
export interface Reason {
  readonly key: string;
  readonly translations: Readonly<Record<string, string>>;
}

/** Reasons of a DISAPPROVED outcome. */
export const DISAPPROVE_REASONS: readonly Reason[] = [
  {
    key: 'DOCUMENT_EXPIRED',
    translations: { en: 'The document has expired.', nl: 'Het document is verlopen.' },
  },
  {
    key: 'MRZ_CHECK_FAILED',
    translations: {
      en: 'The machine readable zone does not pass its checks.',
      nl: 'De machineleesbare zone voldoet niet aan de controles.',
    },
  },
  {
    key: 'SECURITY_FEATURES_MISSING',
    translations: {
      en: 'Required security features were not found.',
      nl: 'Vereiste echtheidskenmerken zijn niet gevonden.',
    },
  },
  {
    key: 'DOCUMENT_REPORTED_LOST_OR_STOLEN',
    translations: {
      en: 'The document is registered as lost or stolen.',
      nl: 'Het document staat geregistreerd als vermist of gestolen.',
    },
  },
  {
    key: 'FACE_MISMATCH',
    translations: {
      en: 'The face does not match the document photo.',
      nl: 'Het gezicht komt niet overeen met de pasfoto.',
    },
  },
  {
    key: 'NO_RIGHT_TO_WORK',
    translations: {
      en: 'The document does not grant the right to work.',
      nl: 'Het document geeft geen recht op arbeid.',
    },
  },
  {
    key: 'SANCTION_LIST_HIT',
    translations: {
      en: 'The person appears on a sanction list.',
      nl: 'De persoon staat op een sanctielijst.',
    },
  },
];

/** Reasons of a TECHNICAL_REJECT outcome. */
export const TECHNICAL_REJECT_REASONS: readonly Reason[] = [
  {
    key: 'IMAGE_TOO_BLURRY',
    translations: { en: 'The image is too blurry.', nl: 'De afbeelding is te onscherp.' },
  },
  {
    key: 'DOCUMENT_NOT_FULLY_VISIBLE',
    translations: {
      en: 'The document is not fully visible.',
      nl: 'Het document is niet volledig zichtbaar.',
    },
  },
  {
    key: 'GLARE_DETECTED',
    translations: {
      en: 'Light reflection hides parts of the document.',
      nl: 'Lichtreflectie verbergt delen van het document.',
    },
  },
  {
    key: 'UNSUPPORTED_DOCUMENT',
    translations: {
      en: 'The document type is not supported.',
      nl: 'Dit type document wordt niet ondersteund.',
    },
  },
  {
    key: 'IMAGE_RESOLUTION_TOO_LOW',
    translations: {
      en: 'The image resolution is too low.',
      nl: 'De resolutie van de afbeelding is te laag.',
    },
  },
];

/** Every reason, automatic and manual. */
export const ALL_REASONS: readonly Reason[] = [
  ...DISAPPROVE_REASONS,
  ...TECHNICAL_REJECT_REASONS,
  {
    key: 'MANUAL_REVIEW_REJECTED',
    translations: {
      en: 'Rejected after manual review.',
      nl: 'Afgewezen na handmatige beoordeling.',
    },
  },
  {
    key: 'WATERMARK_INVALID',
    translations: {
      en: 'The selfie images do not carry the watermark of the capture SDK.',
      nl: 'De selfies hebben niet het watermerk van de opname-SDK.',
    },
  },
];
