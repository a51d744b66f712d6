/**
 * Helpers shared by the route groups: the staging-only `mock-test` header, the account's users, image
 * bytes and the quality verdict, and the tolerant reading of the SDK token query.
 */
import type { IncomingMessage } from 'node:http';
import {
  MIN_UPLOAD_HEIGHT,
  MIN_UPLOAD_WIDTH,
  MOCK_TEST_HEADER,
  MOCK_TEST_VALUES,
  type MockTestValue,
} from '../../shared/api/enums';
import type { UploadImage } from '../../shared/api/schemas';
import { imageDimensions, sniffContentType } from '../../shared/image';
import { badRequest } from '../http';
import type { SimulatorState } from '../state';

/** The `mock-test` value of a request; §1: honoured on staging only, production ignores it entirely. */
export function mockValue(state: SimulatorState, req: IncomingMessage): MockTestValue | undefined {
  if (state.environment !== 'staging') return undefined;
  const raw = req.headers[MOCK_TEST_HEADER];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toUpperCase();
  if (!value || !(MOCK_TEST_VALUES as readonly string[]).includes(value)) {
    throw badRequest(MOCK_TEST_HEADER, `header must be one of ${MOCK_TEST_VALUES.join(', ')}`);
  }
  return value as MockTestValue;
}

/** The userId of a new transaction: the default when absent, a 400 when not a user of the account. */
export function checkUser(state: SimulatorState, userId: string | undefined): string {
  if (userId === undefined || userId === '') return state.defaultUserId;
  // §2.2: the userId must name a user of the account; the spec leaves the error undocumented, so the
  // simulator answers its default error body (400, code 3) as for any invalid field.
  const users = state.options.users ?? [state.defaultUserId];
  if (!users.includes(userId)) throw badRequest('userId', 'is not a user of the account');
  return userId;
}

/** The decoded bytes of an uploaded image; empty is a 400 naming `field`. */
export function imageBytes(image: UploadImage, field: string): Buffer {
  const bytes = Buffer.from(image.data, 'base64');
  if (bytes.length === 0) throw badRequest(field, 'is empty');
  return bytes;
}

/** Quality verdicts from best to worst: the overall result over several images is the worst (§4.8). */
const QUALITY_RANK = ['APPROVED', 'UNKNOWN', 'DISAPPROVED', 'TECHNICAL_REJECT'] as const;
type QualityVerdict = { result: (typeof QUALITY_RANK)[number]; message?: string };

/**
 * Quality verdict from the pixels, worst over all images: not an image → TECHNICAL_REJECT, too small →
 * DISAPPROVED, an image format whose size cannot be read → UNKNOWN (nothing to judge it by).
 */
export function qualityOf(images: Buffer[]): { result: string; message?: string } {
  let worst: QualityVerdict = { result: 'APPROVED' };
  for (const bytes of images) {
    const verdict = qualityOfOne(bytes);
    if (QUALITY_RANK.indexOf(verdict.result) > QUALITY_RANK.indexOf(worst.result)) worst = verdict;
  }
  return worst;
}

function qualityOfOne(bytes: Buffer): QualityVerdict {
  const dims = imageDimensions(bytes);
  if (!dims) {
    if (sniffContentType(bytes).contentType.startsWith('image/')) {
      return { result: 'UNKNOWN', message: 'The image size could not be read.' };
    }
    return {
      result: 'TECHNICAL_REJECT',
      message: 'The image is not a readable JPEG, PNG, WebP, GIF or TIFF image.',
    };
  }
  if (dims.width < MIN_UPLOAD_WIDTH || dims.height < MIN_UPLOAD_HEIGHT) {
    return { result: 'DISAPPROVED', message: 'The image resolution is too low.' };
  }
  return { result: 'APPROVED' };
}

/**
 * The SDK token query as the schema expects it. Tolerant like the service likely is: snake_case names,
 * `services` repeated or comma-separated; unknown names are ignored.
 */
export function sdkQuery(q: URLSearchParams): Record<string, unknown> {
  const get = (camel: string, snake: string) => q.get(camel) ?? q.get(snake) ?? undefined;
  const services = [...q.getAll('services'), ...q.getAll('services[]')]
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const out: Record<string, unknown> = { services };
  const challenges = get('numberOfChallenges', 'number_of_challenges');
  if (challenges !== undefined)
    out.numberOfChallenges = /^-?[0-9]+$/.test(challenges) ? Number(challenges) : challenges;
  const ref = get('customerReference', 'customer_reference');
  if (ref !== undefined) out.customerReference = ref;
  const watermark = get('validateWatermark', 'validate_watermark');
  if (watermark !== undefined) {
    out.validateWatermark = watermark === 'true' ? true : watermark === 'false' ? false : watermark;
  }
  return out;
}
