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
import * as z from 'zod/mini';
import './zod-locale';
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
  return z.string() as unknown as z.ZodMiniType<T[number] | (string & {})>;
}

/** Base64 (standard alphabet, optional padding). Data URLs are not base64 and are rejected. */
const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;
export const base64String = z
  .string()
  .check(z.minLength(1, 'must not be empty'))
  .check(
    z.refine(
      (s) => s.length % 4 !== 1 && BASE64_RE.test(s),
      'must be base64 (no data: prefix, no line breaks)',
    ),
  );

const languageCode = z.string().check(z.regex(/^[a-z]{2}$/, 'must be a two-letter lowercase language code'));
const nonEmpty = z.string().check(z.minLength(1, 'must not be empty'));

// ---------------------------------------------------------------------------------------------------
// Requests (strict)
// ---------------------------------------------------------------------------------------------------

/** An uploaded image (§4.4, §4.5). */
export const uploadImageSchema = z.strictObject({
  data: base64String,
  type: z.optional(z.enum(UPLOAD_IMAGE_TYPES)),
  additionalDocumentType: z.optional(nonEmpty),
  customerReference: z.optional(z.string()),
});
export type UploadImage = z.infer<typeof uploadImageSchema>;

/** POST /api/v2/secureidlink body (§4.1). */
export const secureLinkRequestSchema = z
  .strictObject({
    product: z.optional(z.enum(PRODUCTS)),
    name: z.optional(z.string()),
    emailAddress: z.optional(z.email('must be an e-mail address')),
    phoneNumber: z.optional(
      z.string().check(z.regex(/^\+[1-9][0-9]{6,14}$/, 'must be in international format, e.g. +31612345678')),
    ),
    whatsappPhoneNumber: z.optional(
      z.string().check(z.regex(/^\+[1-9][0-9]{6,14}$/, 'must be in international format, e.g. +31612345678')),
    ),
    communicationModes: z.optional(z.array(z.enum(COMMUNICATION_MODES))),
    disableCommunication: z.optional(z.boolean()),
    languagePrefix: z.optional(languageCode),
    enableOneTimePassword: z.optional(z.boolean()),
    additionalDocuments: z.optional(z.array(nonEmpty)),
    customerReference: z.optional(z.string()),
    userId: z.optional(z.string()),
    linkedTransactionId: z.optional(nonEmpty),
    rtwType: z.optional(z.enum(RTW_TYPES)),
  })
  .check(
    z.superRefine((req, ctx) => {
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
    }),
  );
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
  customerReference: z.optional(z.string()),
});
export type FaceQualityRequest = z.infer<typeof faceQualityRequestSchema>;

/** POST /api/v2/faceverify body (§4.4). */
export const faceVerifyRequestSchema = z.strictObject({
  transactionId: nonEmpty,
  images: z.array(uploadImageSchema).check(z.minLength(1, 'must contain a COMPARE image and LIVE images')),
});
export type FaceVerifyRequest = z.infer<typeof faceVerifyRequestSchema>;

/** POST /api/v2/idverify body (§4.5). */
export const idVerifyRequestSchema = z.strictObject({
  transactionId: z.optional(nonEmpty),
  product: z.enum(IDENTITY_UPLOAD_PRODUCTS),
  images: z.array(uploadImageSchema).check(z.minLength(1, 'must contain at least one image')),
  customerReference: z.optional(z.string()),
  userId: z.optional(z.string()),
  rtwType: z.optional(z.enum(RTW_TYPES)),
});
export type IdVerifyRequest = z.infer<typeof idVerifyRequestSchema>;

/** POST /api/v2/oauth/token body (§4.6). Credentials travel in HTTP Basic, never in the body. */
export const tokenRequestSchema = z.strictObject({
  scopes: z.array(nonEmpty).check(z.minLength(1, 'must name at least one scope')),
});
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

/** POST /api/v2/quality body (§4.8). */
export const qualityRequestSchema = z.strictObject({
  images: z.array(base64String).check(z.minLength(1, 'must contain at least one image')),
});
export type QualityRequest = z.infer<typeof qualityRequestSchema>;

/** POST /api/v2/facelinkpackage body (§4.10). */
export const faceLinkPackageRequestSchema = z.strictObject({
  token: nonEmpty,
});
export type FaceLinkPackageRequest = z.infer<typeof faceLinkPackageRequestSchema>;

/** GET /api/v2/sdk/token query (§4.11). Names are the spec's camelCase. */
export const sdkTokenRequestSchema = z.strictObject({
  services: z.array(z.enum(SDK_SERVICES)).check(z.minLength(1, 'must name at least one service')),
  // §4.11 sets the type (integer) and the default (2), no range: a range is the service's to enforce.
  numberOfChallenges: z.optional(z.number().check(z.int('must be a whole number'))),
  customerReference: z.optional(z.string()),
  validateWatermark: z.optional(z.boolean()),
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
    profiles: z
      .array(z.string().check(z.regex(/^[0-9]+$/, 'must be a profile number')))
      .check(z.minLength(1, 'must name a profile')),
    profileType: z.enum(VOG_PROFILE_TYPES),
  }),
  customerReference: z.optional(z.string()),
  userId: z.optional(z.string()),
  hasExistingVog: z.optional(z.boolean()),
});
export type VogRequest = z.infer<typeof vogRequestSchema>;

// ---------------------------------------------------------------------------------------------------
// Responses (tolerant)
// ---------------------------------------------------------------------------------------------------

// The error body, the token response and the polling response are parsed by hand in ./responses (the
// pipeline functions read them and bundle no zod).
export type { ErrorBody, PollRecord, PollResponse, TokenResponse } from './responses';

export const communicationResponseSchema = z.looseObject({
  communicationMode: z.optional(openEnum(COMMUNICATION_MODES)),
  status: z.optional(openEnum(COMMUNICATION_STATUSES)),
});

export const secureLinkResponseSchema = z.looseObject({
  secureId: z.optional(z.string()),
  transactionId: z.string(),
  link: z.optional(z.string()),
  qrCode: z.optional(z.string()),
  whatsappRedirectUrl: z.optional(z.string()),
  communicationsResponse: z.optional(z.array(communicationResponseSchema)),
});
export type SecureLinkResponse = z.infer<typeof secureLinkResponseSchema>;

export const bulkSecureLinksResponseSchema = z.looseObject({
  success: z.boolean(),
  errors: z.optional(
    z.array(z.looseObject({ message: z.optional(z.string()), row: z.optional(z.number()) })),
  ),
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
  message: z.optional(z.string()),
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
  translations: z.optional(z.record(z.string(), z.unknown())),
});
export const reasonsResponseSchema = z.looseObject({ reasons: z.array(reasonSchema) });
export type ReasonsResponse = z.infer<typeof reasonsResponseSchema>;

const messages = z.optional(z.array(z.string()));
const customerReferences = z.optional(z.array(z.string()));

/** Common part of every verification section. */
const sectionShape = {
  result: z.optional(openEnum(RESULT_VALUES)),
  messages,
  customerReferences,
};

const nameSchema = z.looseObject({
  fullname: z.optional(z.string()),
  givenNames: z.optional(z.string()),
  surname: z.optional(z.string()),
});

/**
 * `data` is the base64 of the image or file. An entry without it (missing, `null`, not a string) parses
 * with `data: ''` instead of failing the whole result: the fetch has already removed the poll record.
 * Decode with `decodeBase64Data` (data URLs, line breaks, URL-safe alphabet); `''` means "no data".
 */
const resultData = z.catch(z.string(), '');

export const resultImageSchema = z.looseObject({
  data: resultData,
  documentType: z.optional(openEnum(RESULT_IMAGE_DOCUMENT_TYPES)),
  metadata: z.optional(z.record(z.string(), z.unknown())),
  pageType: z.optional(openEnum(RESULT_IMAGE_PAGE_TYPES)),
  customerReference: z.optional(z.string()),
});
export type ResultImage = z.infer<typeof resultImageSchema>;

export const resultFileSchema = z.looseObject({
  data: resultData,
  documentType: z.optional(openEnum(RESULT_FILE_DOCUMENT_TYPES)),
});
export type ResultFile = z.infer<typeof resultFileSchema>;

const documentSecurityFeature = z.optional(openEnum(DOCUMENT_SECURITY_FEATURE_VALUES));

export const identitySectionSchema = z.looseObject({
  ...sectionShape,
  data: z.optional(
    z.looseObject({
      name: z.optional(nameSchema),
      dateOfBirth: z.optional(z.string()),
      dateOfIssuance: z.optional(z.string()),
      dateOfExpiry: z.optional(z.string()),
      documentType: z.optional(z.string()),
      documentSubType: z.optional(z.string()),
      documentNumber: z.optional(z.string()),
      gender: z.optional(z.string()),
      issuingStateOrOrganization: z.optional(z.string()),
      nationality: z.optional(z.string()),
      personalGovernmentId: z.optional(z.string()),
      placeOfBirth: z.optional(z.string()),
      residencePermitType: z.optional(z.string()),
      mrzLines: z.optional(z.array(z.string())),
    }),
  ),
  documentValidation: z.optional(
    z.looseObject({
      backgroundPrint: documentSecurityFeature,
      font: documentSecurityFeature,
      hologram: documentSecurityFeature,
      lamination: documentSecurityFeature,
      mrzFont: documentSecurityFeature,
      opticallyVariableInk: documentSecurityFeature,
      perforation: documentSecurityFeature,
      photoIntegration: documentSecurityFeature,
      stamps: documentSecurityFeature,
    }),
  ),
  verifications: z.optional(
    z.looseObject({
      sanctionList: z.optional(
        z.looseObject({
          result: z.optional(openEnum(RESULT_VALUES)),
          verificationResult: z.optional(openEnum(VERIFICATION_RESULTS)),
          foundOnLists: z.optional(z.array(z.string())),
        }),
      ),
      lostAndStolen: z.optional(
        z.looseObject({
          verificationResult: z.optional(openEnum(VERIFICATION_RESULTS)),
          messages,
        }),
      ),
    }),
  ),
});

export const rightToWorkSectionSchema = z.looseObject({
  ...sectionShape,
  rtwType: z.optional(openEnum(RTW_TYPES)),
  data: z.optional(
    z.looseObject({
      vsFromDate: z.optional(z.string()),
      vsDueDate: z.optional(z.string()),
      twvFromDate: z.optional(z.string()),
      twvDueDate: z.optional(z.string()),
      personalGovernmentId: z.optional(z.string()),
      employmentRemark: z.optional(z.string()),
      attachmentDueDate: z.optional(z.string()),
      vignetteDueDate: z.optional(z.string()),
      conditions: z.optional(z.string()),
      details: z.optional(z.string()),
      startDate: z.optional(z.string()),
      endDate: z.optional(z.string()),
      dueDate: z.optional(z.string()),
    }),
  ),
});

export const payrollTaxStatementSectionSchema = z.looseObject({
  ...sectionShape,
  data: z.optional(
    z.looseObject({
      personalGovernmentIdPresent: z.optional(z.boolean()),
      signDatePresent: z.optional(z.boolean()),
      nameAddressResidencePresent: z.optional(z.boolean()),
      signaturePresent: z.optional(z.boolean()),
      applyPayrollTax: z.optional(z.boolean()),
      payrollTaxDate: z.optional(z.string()),
      signDate: z.optional(z.string()),
      personalGovernmentId: z.optional(z.string()),
    }),
  ),
  inputData: z.optional(
    z.looseObject({
      applyPayrollTax: z.optional(z.boolean()),
      addressInNld: z.optional(z.boolean()),
      city: z.optional(z.string()),
      houseNumber: z.optional(z.string()),
      houseNumberAddition: z.optional(z.string()),
      payrollTaxDate: z.optional(z.string()),
      postalCode: z.optional(z.string()),
      street: z.optional(z.string()),
      country: z.optional(z.string()),
      bsn: z.optional(z.string()),
      dateOfBirth: z.optional(z.string()),
      fullname: z.optional(z.string()),
      nationality: z.optional(z.string()),
    }),
  ),
});

export const drivingLicenseSectionSchema = z.looseObject({
  ...sectionShape,
  data: z.optional(
    z.looseObject({
      name: z.optional(nameSchema),
      dateOfBirth: z.optional(z.string()),
      dateOfIssuance: z.optional(z.string()),
      dateOfExpiry: z.optional(z.string()),
      documentNumber: z.optional(z.string()),
      issuingStateOrOrganization: z.optional(z.string()),
      personalGovernmentId: z.optional(z.string()),
      placeOfBirth: z.optional(z.string()),
      class: z.optional(z.string()),
      classes: z.optional(
        z.array(z.looseObject({ name: z.optional(z.string()), dateOfExpiry: z.optional(z.string()) })),
      ),
    }),
  ),
});

export const vogSectionSchema = z.looseObject({
  ...sectionShape,
  createdAt: z.optional(z.string()),
  status: z.optional(z.string()),
  data: z.optional(
    z.looseObject({
      givenNames: z.optional(z.string()),
      surname: z.optional(z.string()),
      dateOfBirth: z.optional(z.string()),
      dateOfIssuance: z.optional(z.string()),
      companyName: z.optional(z.string()),
      profiles: z.optional(z.array(z.string())),
    }),
  ),
});

export const additionalDocumentSchema = z.looseObject({
  additionalDocumentType: z.optional(z.string()),
  customerReferences,
  result: z.optional(openEnum(RESULT_VALUES)),
  messages,
  data: z.optional(
    z.looseObject({
      socialSecurityNumber: z.optional(z.string()),
      personalGovernmentId: z.optional(z.string()),
      name: z.optional(nameSchema),
    }),
  ),
});

export const faceVerifySectionSchema = z.looseObject({ ...sectionShape });

export const digitalSigningSectionSchema = z.looseObject({
  ...sectionShape,
  linkedTransactions: z.optional(z.array(z.string())),
});

export const faceLinkSectionSchema = z.looseObject({
  ...sectionShape,
  gpsLocation: z.optional(
    z.looseObject({ latitude: z.optional(z.number()), longitude: z.optional(z.number()) }),
  ),
});

/** The result object of GET /api/v2/result/{resultId} (§2.5). */
export const resultSchema = z.looseObject({
  transactionId: z.optional(z.string()),
  customerReference: z.optional(z.string()),
  userId: z.optional(z.string()),
  result: z.optional(openEnum(RESULT_VALUES)),
  messages,
  images: z.optional(z.array(resultImageSchema)),
  files: z.optional(z.array(resultFileSchema)),
  faceVerify: z.optional(faceVerifySectionSchema),
  identity: z.optional(identitySectionSchema),
  rightToWork: z.optional(rightToWorkSectionSchema),
  payrollTaxStatement: z.optional(payrollTaxStatementSectionSchema),
  drivingLicense: z.optional(drivingLicenseSectionSchema),
  digitalSigning: z.optional(digitalSigningSectionSchema),
  vog: z.optional(vogSectionSchema),
  additionalDocuments: z.optional(z.array(additionalDocumentSchema)),
  faceLink: z.optional(faceLinkSectionSchema),
});
export type VerificationResultDocument = z.infer<typeof resultSchema>;
