/**
 * The upload side: GET /api/v2/sdk/token (§4.11), POST /api/v2/faceverify (§4.4), POST /api/v2/idverify
 * (§4.5), POST /api/v2/quality (§4.8) and POST /api/v2/facequality (§4.3).
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_NUMBER_OF_CHALLENGES,
  MIN_UPLOAD_HEIGHT,
  MIN_UPLOAD_WIDTH,
  PATHS,
} from '../../shared/api/enums';
import {
  faceQualityRequestSchema,
  faceVerifyRequestSchema,
  idVerifyRequestSchema,
  qualityRequestSchema,
  sdkTokenRequestSchema,
  type UploadImage,
} from '../../shared/api/schemas';
import { allowedUploadContentTypes, describeAllowedUploads } from '../../shared/api/upload-formats';
import { imageDimensions, sniffContentType } from '../../shared/image';
import { badRequest, exact, type Route, UPLOAD_BODY_BYTES, validate } from '../http';
import { uploadOf } from '../result-images';
import { scheduleWhenReady, sdkUploadProblem } from '../sdk-transactions';
import type { SimulatorState, Transaction, UploadedImage } from '../state';
import { hasSdkWatermark } from '../watermark';
import { checkUser, imageBytes, mockValue, qualityOf, sdkQuery } from './common';

/** The SDK, upload and quality routes. */
export function uploadRoutes(state: SimulatorState): Route[] {
  return [
    {
      method: 'POST',
      pattern: exact(PATHS.faceQuality),
      maxBodyBytes: UPLOAD_BODY_BYTES,
      auth: 'bearer',
      handler: ({ body }) => {
        const input = state.read(faceQualityRequestSchema, body, 'face quality');
        return qualityOf([Buffer.from(input.image, 'base64')]);
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.quality),
      maxBodyBytes: UPLOAD_BODY_BYTES,
      auth: 'bearer',
      handler: ({ body }) => {
        const input = state.read(qualityRequestSchema, body, 'quality');
        return qualityOf(input.images.map((i) => Buffer.from(i, 'base64')));
      },
    },
    {
      method: 'GET',
      pattern: exact(PATHS.sdkToken),
      auth: 'bearer',
      scope: 'productapi.sdk.read',
      handler: ({ url }) => {
        const input = validate(sdkTokenRequestSchema, sdkQuery(url.searchParams));
        const t = state.newTransaction('sdk', {
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          sdk: {
            services: input.services,
            numberOfChallenges: input.numberOfChallenges ?? DEFAULT_NUMBER_OF_CHALLENGES,
          },
          ...(input.validateWatermark ? { validateWatermark: true } : {}),
        });
        const token = randomBytes(32).toString('base64url');
        state.sdkTokens.set(token, t.transactionId);
        return { token, transactionId: t.transactionId };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.faceVerify),
      maxBodyBytes: UPLOAD_BODY_BYTES,
      auth: 'bearer',
      scope: 'productapi.faceverify.write',
      handler: ({ body }) => {
        const input = state.read(faceVerifyRequestSchema, body, 'face verify');
        const t = state.transactions.get(input.transactionId);
        if (t?.origin !== 'sdk') throw badRequest('transactionId', 'is not a transaction of an SDK token');
        const problem = sdkUploadProblem(t, 'face');
        if (problem) throw badRequest('transactionId', problem);
        if (!t.sdk?.services.includes('FACE_VERIFY')) {
          throw badRequest('transactionId', 'was not created with the FACE_VERIFY service');
        }
        const bytes = input.images.map((img, i) => imageBytes(img, `images.${i}.data`));
        const live = input.images.filter((i) => i.type === 'LIVE').length;
        const required = Math.max(2, t.sdk.numberOfChallenges);
        if (live < required)
          throw badRequest('images', `must contain at least ${required} LIVE images (got ${live})`);
        if (!input.images.some((i) => i.type === 'COMPARE'))
          throw badRequest('images', 'must contain a COMPARE image');
        t.faceVerified = true;
        // §4.11: with validateWatermark the SDK marks the images it takes (the LIVE challenges); an
        // upload without the mark is not refused but its face verification is disapproved.
        if (t.validateWatermark) {
          const marked = input.images.every(
            (img, i) => img.type !== 'LIVE' || hasSdkWatermark(bytes[i]!, t.transactionId),
          );
          if (!marked) t.watermarkRejected = true;
        }
        t.uploads.push(...input.images.map((img, i) => uploadedImage(img, bytes[i]!)));
        scheduleWhenReady(state, t);
        return { success: true };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.idVerify),
      maxBodyBytes: UPLOAD_BODY_BYTES,
      auth: 'bearer',
      scope: 'productapi.idverify.write',
      handler: ({ req, body }) => {
        const mock = mockValue(state, req);
        const input = state.read(idVerifyRequestSchema, body, 'identity upload');
        const userId = checkUser(state, input.userId);
        const bytes = input.images.map((image, i) => checkIdentityUpload(image, `images.${i}.data`));
        let t: Transaction;
        if (input.transactionId !== undefined) {
          const existing = state.transactions.get(input.transactionId);
          if (existing?.origin !== 'sdk') {
            throw badRequest('transactionId', 'is not a transaction of an SDK token');
          }
          const problem = sdkUploadProblem(existing, 'identity');
          if (problem) throw badRequest('transactionId', problem);
          t = existing;
        } else {
          t = state.newTransaction('idverify', {});
        }
        Object.assign(t, {
          product: input.product,
          userId,
          identityUploaded: true,
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          ...(input.rtwType !== undefined ? { rtwType: input.rtwType } : {}),
          ...(mock !== undefined ? { mock } : {}),
        });
        t.uploads.unshift(...input.images.map((img, i) => uploadedImage(img, bytes[i]!)));
        if (mock) state.complete(t);
        else scheduleWhenReady(state, t);
        return { transactionId: t.transactionId };
      },
    },
  ];
}

/**
 * §4.5 and §8: an upload in a format its type allows (`shared/api/upload-formats.ts`), and an image at
 * least 640 × 480. A 400 names the field.
 */
function checkIdentityUpload(image: UploadImage, field: string): Buffer {
  const bytes = imageBytes(image, field);
  const contentType = sniffContentType(bytes).contentType;
  if (!allowedUploadContentTypes(image.type).includes(contentType)) {
    throw badRequest(field, `must be ${describeAllowedUploads(image.type)}`);
  }
  if (contentType === 'application/pdf') return bytes;
  const dims = imageDimensions(bytes);
  if (!dims) throw badRequest(field, `must be ${describeAllowedUploads(image.type)}`);
  if (dims.width < MIN_UPLOAD_WIDTH || dims.height < MIN_UPLOAD_HEIGHT) {
    throw badRequest(field, `is smaller than ${MIN_UPLOAD_WIDTH} x ${MIN_UPLOAD_HEIGHT} pixels`);
  }
  return bytes;
}

/** What the simulator keeps of an upload: its type, references and bytes, which its result returns. */
function uploadedImage(image: UploadImage, bytes: Buffer): UploadedImage {
  return uploadOf(image, bytes);
}
