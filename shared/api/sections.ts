/**
 * The sections of a result (§2.5) by name, apart from their schemas (`./schemas`): the stored item reads
 * them in the functions, which bundle no zod.
 */

/** Names of the per-section objects of a result that carry their own `result`. */
export const RESULT_SECTIONS = [
  'identity',
  'rightToWork',
  'faceVerify',
  'payrollTaxStatement',
  'drivingLicense',
  'digitalSigning',
  'vog',
  'faceLink',
] as const;
export type ResultSection = (typeof RESULT_SECTIONS)[number];
