/**
 * Runtime schemas of the verification service's requests and responses (spec §2, §4), defined once and
 * shared by the client and the simulator.
 *
 * - Request schemas are strict: unknown fields, wrong enum values and missing required fields are
 *   rejected with a path that names the field, before anything is sent.
 * - Response schemas are tolerant: unknown fields are kept (`looseObject`) and enum-typed fields accept
 *   any string, because the service adds fields and values release by release (§9). Only the shape the
 *   pipeline relies on is enforced.
 */
import { z } from 'zod';
import {
  BULK_SECURE_LINK_PRODUCTS,
  COMMUNICATION_MODES,
  COMMUNICATION_STATUSES,
  DOCUMENT_SECURITY_FEATURE_VALUES,
  IDENTITY_UPLOAD_PRODUCTS,
  PRODUCTS,
  RESULT_FILE_DOCUMENT_TYPES,
  RESULT_IMAGE_DOCUMENT_TYPES,
  RESULT_IMAGE_PAGE_TYPES,
  RESULT_VALUES,
  RTW_TYPES,
  SDK_SERVICES,
  UPLOAD_IMAGE_TYPES,
  VERIFICATION_RESULTS,
  VOG_PROFILE_TYPES,
} from './enums';

/**
 * An enum in a response: the known values are typed, an unknown value is kept as a string and never fails.
 * `(string & {})` keeps editor completion for the known values.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(_values: T) {
  return z.string() as unknown as z.ZodType<T[number] | (string & {})>;
}

/** Base64 (standard alphabet, optional padding). Data URLs are not base64 and are rejected. */
const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;
export const base64String = z
  .string()
  .min(1, 'must not be empty')
  .refine((s) => s.length % 4 !== 1 && BASE64_RE.test(s), 'must be base64 (no data: prefix, no line breaks)');

const languageCode = z.string().regex(/^[a-z]{2}$/, 'must be a two-letter lowercase language code');
const nonEmpty = z.string().min(1, 'must not be empty');

// ---------------------------------------------------------------------------------------------------
// Requests (strict)
// ---------------------------------------------------------------------------------------------------

/** An uploaded image (§4.4, §4.5). */
export const uploadImageSchema = z.strictObject({
  data: base64String,
  type: z.enum(UPLOAD_IMAGE_TYPES).optional(),
  additionalDocumentType: nonEmpty.optional(),
  customerReference: z.string().optional(),
});
export type UploadImage = z.infer<typeof uploadImageSchema>;

/** POST /api/v2/secureidlink body (§4.1). */
export const secureLinkRequestSchema = z
  .strictObject({
    product: z.enum(PRODUCTS).optional(),
    name: z.string().optional(),
    emailAddress: z.email('must be an e-mail address').optional(),
    phoneNumber: z
      .string()
      .regex(/^\+[1-9][0-9]{6,14}$/, 'must be in international format, e.g. +31612345678')
      .optional(),
    whatsappPhoneNumber: z
      .string()
      .regex(/^\+[1-9][0-9]{6,14}$/, 'must be in international format, e.g. +31612345678')
      .optional(),
    communicationModes: z.array(z.enum(COMMUNICATION_MODES)).optional(),
    disableCommunication: z.boolean().optional(),
    languagePrefix: languageCode.optional(),
    enableOneTimePassword: z.boolean().optional(),
    additionalDocuments: z.array(nonEmpty).optional(),
    customerReference: z.string().optional(),
    userId: z.string().optional(),
    linkedTransactionId: nonEmpty.optional(),
    rtwType: z.enum(RTW_TYPES).optional(),
  })
  .superRefine((req, ctx) => {
    if (req.product === 'FACE_LINK' && !req.linkedTransactionId) {
      ctx.addIssue({
        code: 'custom',
        path: ['linkedTransactionId'],
        message: 'is required for a FACE_LINK request (the transactionId of the original premium request)',
      });
    }
    const modes = req.communicationModes ?? [];
    if (!req.disableCommunication) {
      if (modes.includes('MODE_EMAIL') && !req.emailAddress) {
        ctx.addIssue({ code: 'custom', path: ['emailAddress'], message: 'is required with MODE_EMAIL' });
      }
      if (modes.includes('MODE_SMS') && !req.phoneNumber) {
        ctx.addIssue({ code: 'custom', path: ['phoneNumber'], message: 'is required with MODE_SMS' });
      }
      if (modes.includes('MODE_WHATSAPP') && !req.whatsappPhoneNumber) {
        ctx.addIssue({
          code: 'custom',
          path: ['whatsappPhoneNumber'],
          message: 'is required with MODE_WHATSAPP',
        });
      }
    }
  });
export type SecureLinkRequest = z.infer<typeof secureLinkRequestSchema>;

/** POST /api/v2/secureidlinks body (§4.2). `file` is the base64 of a semicolon CSV. */
export const bulkSecureLinksRequestSchema = z.strictObject({
  file: base64String,
  product: z.enum(BULK_SECURE_LINK_PRODUCTS),
});
export type BulkSecureLinksRequest = z.infer<typeof bulkSecureLinksRequestSchema>;

/** POST /api/v2/facequality body (§4.3). */
export const faceQualityRequestSchema = z.strictObject({
  image: base64String,
  customerReference: z.string().optional(),
});
export type FaceQualityRequest = z.infer<typeof faceQualityRequestSchema>;

/** POST /api/v2/faceverify body (§4.4). */
export const faceVerifyRequestSchema = z.strictObject({
  transactionId: nonEmpty,
  images: z.array(uploadImageSchema).min(1, 'must contain a COMPARE image and LIVE images'),
});
export type FaceVerifyRequest = z.infer<typeof faceVerifyRequestSchema>;

/** POST /api/v2/idverify body (§4.5). */
export const idVerifyRequestSchema = z.strictObject({
  transactionId: nonEmpty.optional(),
  product: z.enum(IDENTITY_UPLOAD_PRODUCTS),
  images: z.array(uploadImageSchema).min(1, 'must contain at least one image'),
  customerReference: z.string().optional(),
  userId: z.string().optional(),
  rtwType: z.enum(RTW_TYPES).optional(),
});
export type IdVerifyRequest = z.infer<typeof idVerifyRequestSchema>;

/** POST /api/v2/oauth/token body (§4.6). Credentials travel in HTTP Basic, never in the body. */
export const tokenRequestSchema = z.strictObject({
  scopes: z.array(nonEmpty).min(1, 'must name at least one scope'),
});
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

/** POST /api/v2/quality body (§4.8). */
export const qualityRequestSchema = z.strictObject({
  images: z.array(base64String).min(1, 'must contain at least one image'),
});
export type QualityRequest = z.infer<typeof qualityRequestSchema>;

/** POST /api/v2/facelinkpackage body (§4.10). */
export const faceLinkPackageRequestSchema = z.strictObject({
  token: nonEmpty,
});
export type FaceLinkPackageRequest = z.infer<typeof faceLinkPackageRequestSchema>;

/** GET /api/v2/sdk/token query (§4.11). Names are the spec's camelCase. */
export const sdkTokenRequestSchema = z.strictObject({
  services: z.array(z.enum(SDK_SERVICES)).min(1, 'must name at least one service'),
  numberOfChallenges: z.number().int('must be a whole number').min(1).max(10).optional(),
  customerReference: z.string().optional(),
  validateWatermark: z.boolean().optional(),
});
export type SdkTokenRequest = z.infer<typeof sdkTokenRequestSchema>;

/** POST /api/v2/vog body (§4.12). */
export const vogRequestSchema = z.strictObject({
  givenNames: nonEmpty,
  surname: nonEmpty,
  emailAddress: z.email('must be an e-mail address'),
  language: languageCode,
  vogRequest: z.strictObject({
    companyName: nonEmpty,
    jobTitle: nonEmpty,
    profiles: z.array(z.string().regex(/^[0-9]+$/, 'must be a profile number')).min(1, 'must name a profile'),
    profileType: z.enum(VOG_PROFILE_TYPES),
  }),
  customerReference: z.string().optional(),
  userId: z.string().optional(),
  hasExistingVog: z.boolean().optional(),
});
export type VogRequest = z.infer<typeof vogRequestSchema>;

// ---------------------------------------------------------------------------------------------------
// Responses (tolerant)
// ---------------------------------------------------------------------------------------------------

/** Default error body (§7). */
export const errorBodySchema = z.looseObject({
  code: z.number().int().optional(),
  message: z.string().optional(),
  details: z.array(z.unknown()).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * Token response (§4.6). The spec says `expiresIn` is a string of seconds; a JSON number is accepted too,
 * and so is a missing `tokenType` (presented as `Bearer` anyway). Both come out normalised: `expiresIn` as
 * a number of seconds, `tokenType` as `Bearer` for any spelling of it.
 */
export const tokenResponseSchema = z.looseObject({
  accessToken: nonEmpty,
  expiresIn: z
    .union([
      z.number().nonnegative().finite(),
      z
        .string()
        .trim()
        .regex(/^[0-9]+(\.[0-9]+)?$/, 'must be a number of seconds')
        .transform(Number),
    ])
    .refine((seconds) => seconds <= 10 * 365 * 86_400, 'must be a number of seconds'),
  tokenType: z
    .string()
    .nullish()
    .transform((type) => (!type || type.toLowerCase() === 'bearer' ? 'Bearer' : type)),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

export const communicationResponseSchema = z.looseObject({
  communicationMode: openEnum(COMMUNICATION_MODES).optional(),
  status: openEnum(COMMUNICATION_STATUSES).optional(),
});

export const secureLinkResponseSchema = z.looseObject({
  secureId: z.string().optional(),
  transactionId: z.string(),
  link: z.string().optional(),
  qrCode: z.string().optional(),
  whatsappRedirectUrl: z.string().optional(),
  communicationsResponse: z.array(communicationResponseSchema).optional(),
});
export type SecureLinkResponse = z.infer<typeof secureLinkResponseSchema>;

export const bulkSecureLinksResponseSchema = z.looseObject({
  success: z.boolean(),
  errors: z.array(z.looseObject({ message: z.string().optional(), row: z.number().optional() })).optional(),
});
export type BulkSecureLinksResponse = z.infer<typeof bulkSecureLinksResponseSchema>;

/** §4.3: the 200 body's fields are not shown; kept as an open object. */
export const faceQualityResponseSchema = z.looseObject({});
export type FaceQualityResponse = z.infer<typeof faceQualityResponseSchema>;

export const faceVerifyResponseSchema = z.looseObject({ success: z.boolean() });
export type FaceVerifyResponse = z.infer<typeof faceVerifyResponseSchema>;

export const idVerifyResponseSchema = z.looseObject({ transactionId: z.string() });
export type IdVerifyResponse = z.infer<typeof idVerifyResponseSchema>;

export const qualityResponseSchema = z.looseObject({
  result: openEnum(RESULT_VALUES),
  message: z.string().optional(),
});
export type QualityResponse = z.infer<typeof qualityResponseSchema>;

export const faceLinkPackageResponseSchema = z.looseObject({
  packageData: z.string(),
  transactionId: z.string(),
});
export type FaceLinkPackageResponse = z.infer<typeof faceLinkPackageResponseSchema>;

export const sdkTokenResponseSchema = z.looseObject({ token: z.string(), transactionId: z.string() });
export type SdkTokenResponse = z.infer<typeof sdkTokenResponseSchema>;

export const vogResponseSchema = z.looseObject({ transactionId: z.string() });
export type VogResponse = z.infer<typeof vogResponseSchema>;

export const reasonSchema = z.looseObject({
  key: z.string(),
  translations: z.record(z.string(), z.unknown()).optional(),
});
export const reasonsResponseSchema = z.looseObject({ reasons: z.array(reasonSchema) });
export type ReasonsResponse = z.infer<typeof reasonsResponseSchema>;

/** An optional string field of a tolerant record: a value of another type is dropped, not a failure. */
const lenientString = z.string().optional().catch(undefined);

/**
 * A resultId as a record may carry it: a string, or a JSON number taken as its decimal string (another
 * implementation may use numeric ids). Anything else, or a number that JSON could not carry exactly,
 * becomes `''`, which callers count as invalid.
 */
const resultIdValue = z
  .union([z.string(), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).transform(String)])
  .catch('');

/**
 * Polling record (§2.4). One broken record must not block every other result, so nothing in a record
 * fails the poll: a `resultId` that is missing or unusable parses as `''`, an optional field of the wrong
 * type (e.g. `completed` as epoch milliseconds) is dropped, and an entry that is not an object at all
 * becomes `{ resultId: '' }`. Callers check the id before use (the pipeline counts and reports such
 * records). Unknown fields are kept.
 */
export const pollRecordSchema = z
  .looseObject({
    resultId: resultIdValue,
    transactionId: lenientString,
    product: openEnum(PRODUCTS).optional().catch(undefined),
    customerReference: lenientString,
    completed: lenientString,
    userId: lenientString,
  })
  .catch(() => ({ resultId: '' }));
export type PollRecord = z.infer<typeof pollRecordSchema>;

/** GET /api/v2/poll (§4.7): `results` missing or `null` means no records. */
export const pollResponseSchema = z.looseObject({
  results: z
    .array(pollRecordSchema)
    .nullish()
    .transform((records) => records ?? []),
});
export type PollResponse = z.infer<typeof pollResponseSchema>;

const messages = z.array(z.string()).optional();
const customerReferences = z.array(z.string()).optional();

/** Common part of every verification section. */
const sectionShape = {
  result: openEnum(RESULT_VALUES).optional(),
  messages,
  customerReferences,
};

const nameSchema = z.looseObject({
  fullname: z.string().optional(),
  givenNames: z.string().optional(),
  surname: z.string().optional(),
});

/**
 * `data` is the base64 of the image or file. An entry without it (missing, `null`, not a string) parses
 * with `data: ''` instead of failing the whole result: the fetch has already removed the poll record.
 * Decode with `decodeBase64Data` (data URLs, line breaks, URL-safe alphabet); `''` means "no data".
 */
const resultData = z.string().catch('');

export const resultImageSchema = z.looseObject({
  data: resultData,
  documentType: openEnum(RESULT_IMAGE_DOCUMENT_TYPES).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  pageType: openEnum(RESULT_IMAGE_PAGE_TYPES).optional(),
  customerReference: z.string().optional(),
});
export type ResultImage = z.infer<typeof resultImageSchema>;

export const resultFileSchema = z.looseObject({
  data: resultData,
  documentType: openEnum(RESULT_FILE_DOCUMENT_TYPES).optional(),
});
export type ResultFile = z.infer<typeof resultFileSchema>;

const documentSecurityFeature = openEnum(DOCUMENT_SECURITY_FEATURE_VALUES).optional();

export const identitySectionSchema = z.looseObject({
  ...sectionShape,
  data: z
    .looseObject({
      name: nameSchema.optional(),
      dateOfBirth: z.string().optional(),
      dateOfIssuance: z.string().optional(),
      dateOfExpiry: z.string().optional(),
      documentType: z.string().optional(),
      documentSubType: z.string().optional(),
      documentNumber: z.string().optional(),
      gender: z.string().optional(),
      issuingStateOrOrganization: z.string().optional(),
      nationality: z.string().optional(),
      personalGovernmentId: z.string().optional(),
      placeOfBirth: z.string().optional(),
      residencePermitType: z.string().optional(),
      mrzLines: z.array(z.string()).optional(),
    })
    .optional(),
  documentValidation: z
    .looseObject({
      backgroundPrint: documentSecurityFeature,
      font: documentSecurityFeature,
      hologram: documentSecurityFeature,
      lamination: documentSecurityFeature,
      mrzFont: documentSecurityFeature,
      opticallyVariableInk: documentSecurityFeature,
      perforation: documentSecurityFeature,
      photoIntegration: documentSecurityFeature,
      stamps: documentSecurityFeature,
    })
    .optional(),
  verifications: z
    .looseObject({
      sanctionList: z
        .looseObject({
          result: openEnum(RESULT_VALUES).optional(),
          verificationResult: openEnum(VERIFICATION_RESULTS).optional(),
          foundOnLists: z.array(z.string()).optional(),
        })
        .optional(),
      lostAndStolen: z
        .looseObject({
          verificationResult: openEnum(VERIFICATION_RESULTS).optional(),
          messages,
        })
        .optional(),
    })
    .optional(),
});

export const rightToWorkSectionSchema = z.looseObject({
  ...sectionShape,
  rtwType: openEnum(RTW_TYPES).optional(),
  data: z
    .looseObject({
      vsFromDate: z.string().optional(),
      vsDueDate: z.string().optional(),
      twvFromDate: z.string().optional(),
      twvDueDate: z.string().optional(),
      personalGovernmentId: z.string().optional(),
      employmentRemark: z.string().optional(),
      attachmentDueDate: z.string().optional(),
      vignetteDueDate: z.string().optional(),
      conditions: z.string().optional(),
      details: z.string().optional(),
      startDate: z.string().optional(),
      endDate: z.string().optional(),
      dueDate: z.string().optional(),
    })
    .optional(),
});

export const payrollTaxStatementSectionSchema = z.looseObject({
  ...sectionShape,
  data: z
    .looseObject({
      personalGovernmentIdPresent: z.boolean().optional(),
      signDatePresent: z.boolean().optional(),
      nameAddressResidencePresent: z.boolean().optional(),
      signaturePresent: z.boolean().optional(),
      applyPayrollTax: z.boolean().optional(),
      payrollTaxDate: z.string().optional(),
      signDate: z.string().optional(),
      personalGovernmentId: z.string().optional(),
    })
    .optional(),
  inputData: z
    .looseObject({
      applyPayrollTax: z.boolean().optional(),
      addressInNld: z.boolean().optional(),
      city: z.string().optional(),
      houseNumber: z.string().optional(),
      houseNumberAddition: z.string().optional(),
      payrollTaxDate: z.string().optional(),
      postalCode: z.string().optional(),
      street: z.string().optional(),
      country: z.string().optional(),
      bsn: z.string().optional(),
      dateOfBirth: z.string().optional(),
      fullname: z.string().optional(),
      nationality: z.string().optional(),
    })
    .optional(),
});

export const drivingLicenseSectionSchema = z.looseObject({
  ...sectionShape,
  data: z
    .looseObject({
      name: nameSchema.optional(),
      dateOfBirth: z.string().optional(),
      dateOfIssuance: z.string().optional(),
      dateOfExpiry: z.string().optional(),
      documentNumber: z.string().optional(),
      issuingStateOrOrganization: z.string().optional(),
      personalGovernmentId: z.string().optional(),
      placeOfBirth: z.string().optional(),
      class: z.string().optional(),
      classes: z
        .array(z.looseObject({ name: z.string().optional(), dateOfExpiry: z.string().optional() }))
        .optional(),
    })
    .optional(),
});

export const vogSectionSchema = z.looseObject({
  ...sectionShape,
  createdAt: z.string().optional(),
  status: z.string().optional(),
  data: z
    .looseObject({
      givenNames: z.string().optional(),
      surname: z.string().optional(),
      dateOfBirth: z.string().optional(),
      dateOfIssuance: z.string().optional(),
      companyName: z.string().optional(),
      profiles: z.array(z.string()).optional(),
    })
    .optional(),
});

export const additionalDocumentSchema = z.looseObject({
  additionalDocumentType: z.string().optional(),
  customerReferences,
  result: openEnum(RESULT_VALUES).optional(),
  messages,
  data: z
    .looseObject({
      socialSecurityNumber: z.string().optional(),
      personalGovernmentId: z.string().optional(),
      name: nameSchema.optional(),
    })
    .optional(),
});

export const faceVerifySectionSchema = z.looseObject({ ...sectionShape });

export const digitalSigningSectionSchema = z.looseObject({
  ...sectionShape,
  linkedTransactions: z.array(z.string()).optional(),
});

export const faceLinkSectionSchema = z.looseObject({
  ...sectionShape,
  gpsLocation: z
    .looseObject({ latitude: z.number().optional(), longitude: z.number().optional() })
    .optional(),
});

/** The result object of GET /api/v2/result/{resultId} (§2.5). */
export const resultSchema = z.looseObject({
  transactionId: z.string().optional(),
  customerReference: z.string().optional(),
  userId: z.string().optional(),
  result: openEnum(RESULT_VALUES).optional(),
  messages,
  images: z.array(resultImageSchema).optional(),
  files: z.array(resultFileSchema).optional(),
  faceVerify: faceVerifySectionSchema.optional(),
  identity: identitySectionSchema.optional(),
  rightToWork: rightToWorkSectionSchema.optional(),
  payrollTaxStatement: payrollTaxStatementSectionSchema.optional(),
  drivingLicense: drivingLicenseSectionSchema.optional(),
  digitalSigning: digitalSigningSectionSchema.optional(),
  vog: vogSectionSchema.optional(),
  additionalDocuments: z.array(additionalDocumentSchema).optional(),
  faceLink: faceLinkSectionSchema.optional(),
});
export type VerificationResultDocument = z.infer<typeof resultSchema>;

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
