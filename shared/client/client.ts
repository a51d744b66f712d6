/**
 * Typed client of the verification service: one method per endpoint of spec §4. Requests are validated
 * strictly before sending; responses are parsed tolerantly (unknown fields and enum values are kept).
 */
import type * as z from 'zod/mini';
import { type MockTestValue, PATHS } from '../api/enums';
import type {
  bulkSecureLinksRequestSchema,
  faceVerifyRequestSchema,
  idVerifyRequestSchema,
} from '../api/schemas';
import {
  type BulkSecureLinksResponse,
  bulkSecureLinksResponseSchema,
  type FaceLinkPackageResponse,
  type FaceQualityResponse,
  type FaceVerifyResponse,
  faceLinkPackageRequestSchema,
  faceLinkPackageResponseSchema,
  faceQualityRequestSchema,
  faceQualityResponseSchema,
  faceVerifyResponseSchema,
  type IdVerifyResponse,
  idVerifyResponseSchema,
  type QualityResponse,
  qualityRequestSchema,
  qualityResponseSchema,
  type ReasonsResponse,
  reasonsResponseSchema,
  resultSchema,
  type SdkTokenResponse,
  type SecureLinkResponse,
  sdkTokenRequestSchema,
  sdkTokenResponseSchema,
  secureLinkRequestSchema,
  secureLinkResponseSchema,
  type VerificationResultDocument,
  type VogResponse,
  vogRequestSchema,
  vogResponseSchema,
} from '../api/schemas';
import { type ClientOptions, ResultsClient } from './results-client';
import { validateFaceVerifyRequest, validateIdVerifyRequest, validateRequest } from './validate';
import { validateBulkSecureLinksRequest } from './validate-bulk';

/** Request types as callers write them (the strict schemas' input types). */
export type SecureLinkInput = z.input<typeof secureLinkRequestSchema>;
export type BulkSecureLinksInput = z.input<typeof bulkSecureLinksRequestSchema>;
export type SdkTokenInput = z.input<typeof sdkTokenRequestSchema>;
export type IdVerifyInput = z.input<typeof idVerifyRequestSchema>;
export type FaceVerifyInput = z.input<typeof faceVerifyRequestSchema>;
export type FaceQualityInput = z.input<typeof faceQualityRequestSchema>;
export type QualityInput = z.input<typeof qualityRequestSchema>;
export type VogInput = z.input<typeof vogRequestSchema>;
export type FaceLinkPackageInput = z.input<typeof faceLinkPackageRequestSchema>;

/** Options of `IdvClient`. */
export type IdvClientOptions = ClientOptions;

/** Per-call options of the endpoints that honour the staging test header. */
export interface MockTestOptions {
  readonly mockTest?: MockTestValue;
}

/** The typed client: every endpoint of the spec. Every method validates, authenticates, applies timeout and retry, and parses. */
export class IdvClient extends ResultsClient {
  /**
   * GET /api/v2/result/{resultId} (§4.9), parsed whole (`idv result get`). 404 → `NotFoundError`. Removes
   * the polling record. The pipeline streams the body instead (`getResultStream`).
   */
  async getResult(resultId: string): Promise<VerificationResultDocument> {
    const body = await this.getResultBody(resultId);
    return this.parse(resultSchema, body, 200, `GET ${PATHS.result(resultId)}`);
  }

  /** POST /api/v2/secureidlink (§4.1). `mockTest` only on staging. */
  async createSecureLink(
    request: SecureLinkInput,
    options: MockTestOptions = {},
  ): Promise<SecureLinkResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.secureLink,
      body: validateRequest(secureLinkRequestSchema, request, 'secure link request'),
      mayHaveCreated: true,
      mockTest: options.mockTest,
      schema: secureLinkResponseSchema,
    });
  }

  /** POST /api/v2/secureidlinks (§4.2). `file` is the base64 CSV (see `encodeBulkCsv`). */
  async createBulkSecureLinks(request: BulkSecureLinksInput): Promise<BulkSecureLinksResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.bulkSecureLinks,
      body: validateBulkSecureLinksRequest(request),
      mayHaveCreated: true,
      schema: bulkSecureLinksResponseSchema,
    });
  }

  /** GET /api/v2/sdk/token (§4.11): `services` repeated per value, then the optional parameters. */
  async getSdkToken(request: SdkTokenInput): Promise<SdkTokenResponse> {
    const valid = validateRequest(sdkTokenRequestSchema, request, 'SDK token request');
    const query = new URLSearchParams();
    for (const service of valid.services) query.append('services', service);
    if (valid.numberOfChallenges !== undefined) {
      query.set('numberOfChallenges', String(valid.numberOfChallenges));
    }
    if (valid.customerReference !== undefined) query.set('customerReference', valid.customerReference);
    if (valid.validateWatermark !== undefined)
      query.set('validateWatermark', String(valid.validateWatermark));
    return this.call({
      method: 'GET',
      path: PATHS.sdkToken,
      query,
      // A GET, but it starts a transaction: a repeat would create a second one.
      mayHaveCreated: true,
      schema: sdkTokenResponseSchema,
    });
  }

  /**
   * POST /api/v2/idverify (§4.5); uploads in a format their type allows (images of at least 640×480, a
   * PDF payroll tax statement; see `validateIdVerifyRequest`). `mockTest` only on staging.
   */
  async verifyIdentity(request: IdVerifyInput, options: MockTestOptions = {}): Promise<IdVerifyResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.idVerify,
      body: validateIdVerifyRequest(request),
      mayHaveCreated: true,
      mockTest: options.mockTest,
      schema: idVerifyResponseSchema,
    });
  }

  /** POST /api/v2/faceverify (§4.4): at least one COMPARE and two LIVE images. */
  async verifyFace(request: FaceVerifyInput): Promise<FaceVerifyResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.faceVerify,
      body: validateFaceVerifyRequest(request),
      mayHaveCreated: true,
      schema: faceVerifyResponseSchema,
    });
  }

  /** POST /api/v2/facequality (§4.3). A check only, so it is safe to repeat. */
  async checkFaceQuality(request: FaceQualityInput): Promise<FaceQualityResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.faceQuality,
      body: validateRequest(faceQualityRequestSchema, request, 'face quality request'),
      mayHaveCreated: false,
      schema: faceQualityResponseSchema,
    });
  }

  /** POST /api/v2/quality (§4.8). A check only, so it is safe to repeat. */
  async checkQuality(request: QualityInput): Promise<QualityResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.quality,
      body: validateRequest(qualityRequestSchema, request, 'quality request'),
      mayHaveCreated: false,
      schema: qualityResponseSchema,
    });
  }

  /** POST /api/v2/vog (§4.12). */
  async createVog(request: VogInput): Promise<VogResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.vog,
      body: validateRequest(vogRequestSchema, request, 'VOG request'),
      mayHaveCreated: true,
      schema: vogResponseSchema,
    });
  }

  /** GET /api/v2/reasons (§4.13). */
  async getReasons(): Promise<ReasonsResponse> {
    return this.call({
      method: 'GET',
      path: PATHS.reasons,
      mayHaveCreated: false,
      schema: reasonsResponseSchema,
    });
  }

  /** POST /api/v2/facelinkpackage (§4.10). The package is deleted once retrieved, so never repeated. */
  async getFaceLinkPackage(request: FaceLinkPackageInput): Promise<FaceLinkPackageResponse> {
    return this.call({
      method: 'POST',
      path: PATHS.faceLinkPackage,
      body: validateRequest(faceLinkPackageRequestSchema, request, 'FaceLink package request'),
      mayHaveCreated: true,
      schema: faceLinkPackageResponseSchema,
    });
  }
}
