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
} from '../../shared/api/schemas';
import { imageDimensions } from '../../shared/image';
import { badRequest, exact, type Route, validate } from '../http';
import type { SimulatorState, Transaction } from '../state';
import { checkUser, imageBytes, mockValue, qualityOf, sdkQuery } from './common';

/** The SDK, upload and quality routes. */
export function uploadRoutes(state: SimulatorState): Route[] {
  return [
    {
      method: 'POST',
      pattern: exact(PATHS.faceQuality),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(faceQualityRequestSchema, body);
        return qualityOf([Buffer.from(input.image, 'base64')]);
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.quality),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(qualityRequestSchema, body);
        return qualityOf(input.images.map((i) => Buffer.from(i, 'base64')));
      },
    },
    {
      method: 'GET',
      pattern: exact(PATHS.sdkToken),
      auth: 'bearer',
      handler: ({ url }) => {
        const input = validate(sdkTokenRequestSchema, sdkQuery(url.searchParams));
        const t = state.newTransaction('sdk', {
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          sdk: {
            services: input.services,
            numberOfChallenges: input.numberOfChallenges ?? DEFAULT_NUMBER_OF_CHALLENGES,
          },
        });
        const token = randomBytes(32).toString('base64url');
        state.sdkTokens.set(token, t.transactionId);
        return { token, transactionId: t.transactionId };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.faceVerify),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(faceVerifyRequestSchema, body);
        const t = state.transactions.get(input.transactionId);
        if (t?.origin !== 'sdk') throw badRequest('transactionId', 'is not a transaction of an SDK token');
        if (t.state === 'completed') throw badRequest('transactionId', 'is already completed');
        if (!t.sdk?.services.includes('FACE_VERIFY')) {
          throw badRequest('transactionId', 'was not created with the FACE_VERIFY service');
        }
        for (const [i, img] of input.images.entries()) imageBytes(img, `images.${i}.data`);
        const live = input.images.filter((i) => i.type === 'LIVE').length;
        const required = Math.max(2, t.sdk.numberOfChallenges);
        if (live < required)
          throw badRequest('images', `must contain at least ${required} LIVE images (got ${live})`);
        if (!input.images.some((i) => i.type === 'COMPARE'))
          throw badRequest('images', 'must contain a COMPARE image');
        t.faceVerified = true;
        t.imageCustomerReferences.push(...input.images.map((i) => i.customerReference));
        if (t.state === 'created') state.schedule(t);
        return { success: true };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.idVerify),
      auth: 'bearer',
      handler: ({ req, body }) => {
        const mock = mockValue(state, req);
        const input = validate(idVerifyRequestSchema, body);
        const userId = checkUser(state, input.userId);
        input.images.forEach((image, i) => {
          const field = `images.${i}.data`;
          const dims = imageDimensions(imageBytes(image, field));
          if (!dims) throw badRequest(field, 'must be a JPEG or PNG image');
          if (dims.width < MIN_UPLOAD_WIDTH || dims.height < MIN_UPLOAD_HEIGHT) {
            throw badRequest(field, `is smaller than ${MIN_UPLOAD_WIDTH} x ${MIN_UPLOAD_HEIGHT} pixels`);
          }
        });
        let t: Transaction;
        if (input.transactionId !== undefined) {
          const existing = state.transactions.get(input.transactionId);
          if (existing?.origin !== 'sdk') {
            throw badRequest('transactionId', 'is not a transaction of an SDK token');
          }
          if (existing.identityUploaded || existing.state === 'completed') {
            throw badRequest('transactionId', 'already has an identity upload');
          }
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
        t.imageCustomerReferences.unshift(...input.images.map((i) => i.customerReference));
        if (mock) state.complete(t);
        else if (t.state === 'created') state.schedule(t);
        return { transactionId: t.transactionId };
      },
    },
  ];
}
