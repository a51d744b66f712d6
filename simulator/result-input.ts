/**
 * Which sections a transaction's result gets (§2.5 presence rules), from its product, origin, uploads
 * and requests: the `ResultInput` that `buildResult` (`results.ts`) turns into the document. Pure, so the
 * property test (`test/unit/simulator-coherence.test.ts`) builds results of every kind of transaction
 * in process.
 */
import type { MockTestValue, Product, RtwType } from '../shared/api/enums';
import type { ResultControls } from './result-checks';
import type { UploadInput } from './result-images';
import type { Outcome } from './result-sections';
import type { AdditionalDocumentInput, ResultInput, VogInput } from './results';

/** What a result depends on of its transaction (`Transaction` in `state.ts` has all of it). */
export interface TransactionFacts {
  readonly transactionId: string;
  /** How it was started: secureLink, sdk, idverify, vog or bulk. */
  readonly origin: string;
  readonly product?: Product;
  readonly customerReference?: string;
  readonly userId: string;
  readonly rtwType?: RtwType;
  readonly mock?: MockTestValue;
  readonly vog?: VogInput;
  readonly identityUploaded?: boolean;
  readonly faceVerified?: boolean;
  readonly watermarkRejected?: boolean;
  readonly controls?: ResultControls;
  readonly linkedTransactionId?: string;
  readonly additionalDocuments?: readonly string[];
  uploads: readonly UploadInput[];
  readonly resultIds: readonly string[];
}

/** What the result of a transaction depends on beyond the transaction itself. */
export interface ResultSettings {
  /** The seed of this result's fake data. */
  readonly seed: number;
  /** The customer setting of the driving license workflow (§4.1, §4.5). */
  readonly drivingLicenseCheck: boolean;
}

const PREMIUM: readonly string[] = ['IDV_PREMIUM', 'RTW_PREMIUM'];
const RTW: readonly string[] = ['RTW_STANDARD', 'RTW_PREMIUM'];

/** The input of the result document of `t`, completed at `completedAt` with `outcome`. */
export function resultInputOf(
  t: TransactionFacts,
  outcome: Outcome,
  completedAt: number,
  settings: ResultSettings,
): ResultInput {
  const product = t.product;
  const isFaceLink = product === 'FACE_LINK';
  const identity = !isFaceLink && !t.vog && (t.origin !== 'sdk' || t.identityUploaded === true);
  // §2.5: faceVerify only for transactions started with the face verify endpoint (an SDK token's) or for
  // premium products; §1: with mock-test a premium product has it only through the secure link.
  const premium = product !== undefined && PREMIUM.includes(product);
  const faceVerify =
    (t.origin === 'sdk' && t.faceVerified === true) || (premium && (!t.mock || t.origin === 'secureLink'));
  return {
    seed: settings.seed,
    transactionId: t.transactionId,
    ...(product !== undefined ? { product } : {}),
    outcome,
    ...(t.mock ? { mocked: true } : {}),
    ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
    userId: t.userId,
    ...(t.rtwType !== undefined ? { rtwType: t.rtwType } : {}),
    sections: {
      identity,
      rightToWork: identity && product !== undefined && RTW.includes(product),
      faceVerify,
      faceLink: isFaceLink,
      ...(t.vog ? { vog: t.vog } : {}),
      // mock-test keeps the content §1 defines; the other sections follow from real requests.
      ...(t.mock ? {} : requestedSections(t, identity, settings.drivingLicenseCheck)),
      // §2.5: digitalSigning only for the digital signing product, which no §1 product is: a
      // control stands in for it.
      ...(t.controls?.digitalSigning
        ? { digitalSigning: { linkedTransactions: t.linkedTransactionId ? [t.linkedTransactionId] : [] } }
        : {}),
    },
    ...(t.watermarkRejected && faceVerify ? { watermarkRejected: true } : {}),
    ...(t.controls ? { controls: t.controls } : {}),
    uploads: t.uploads,
    completedAt,
  };
}

/**
 * The sections the requests and uploads of `t` call for: `drivingLicense` (the RTW driving license
 * workflow, when the customer setting is on), `payrollTaxStatement` (exactly one statement),
 * and `additionalDocuments` (a SIGNATURE is an image, not a section of its own).
 */
function requestedSections(t: TransactionFacts, identity: boolean, drivingLicenseCheck: boolean) {
  const requested = t.additionalDocuments ?? [];
  const rtw = t.product !== undefined && RTW.includes(t.product);
  const drivingLicenseUpload = (u: UploadInput) =>
    u.type === 'ADDITIONAL' && u.additionalDocumentType === 'DRIVING_LICENSE';
  const drivingLicense =
    drivingLicenseCheck &&
    rtw &&
    identity &&
    (requested.includes('DRIVING_LICENSE') || t.uploads.some(drivingLicenseUpload));
  const uploadedStatements = t.uploads.filter((u) => u.type === 'PAYROLL_TAX_STATEMENT');
  const statements =
    uploadedStatements.length + requested.filter((d) => d === 'PAYROLL_TAX_STATEMENT').length;
  const statementReference = uploadedStatements[0]?.customerReference;
  // Sections of their own are not listed again as additional documents.
  const own = (type: string) =>
    type === 'PAYROLL_TAX_STATEMENT' ||
    type === 'SIGNATURE' ||
    (drivingLicense && type === 'DRIVING_LICENSE');
  const additional: AdditionalDocumentInput[] = [
    ...t.uploads
      .filter((u) => u.type === 'ADDITIONAL' && u.additionalDocumentType && !own(u.additionalDocumentType))
      .map((u) => ({
        additionalDocumentType: u.additionalDocumentType!,
        ...(u.customerReference !== undefined ? { customerReference: u.customerReference } : {}),
      })),
    ...requested.filter((d) => !own(d)).map((d) => ({ additionalDocumentType: d })),
  ];
  return {
    ...(drivingLicense ? { drivingLicense: true } : {}),
    // §2.5: only when a single payroll tax statement was uploaded. Input data is what the end user
    // types in the secure link's onboarding; a direct upload has no field for it.
    ...(statements === 1
      ? {
          payrollTaxStatement: {
            inputData: t.origin === 'secureLink',
            ...(statementReference !== undefined ? { customerReference: statementReference } : {}),
          },
        }
      : {}),
    ...(additional.length > 0 ? { additionalDocuments: additional } : {}),
  };
}

/**
 * Drops the bytes of `t`'s uploads once none of its results is retained any more: the simulator keeps an
 * upload's bytes only as long as a result can return them.
 */
export function releaseUploads(
  t: TransactionFacts | undefined,
  retained: (resultId: string) => boolean,
): void {
  if (!t || t.resultIds.some(retained)) return;
  t.uploads = t.uploads.map(({ data: _data, ...kept }) => kept);
}
