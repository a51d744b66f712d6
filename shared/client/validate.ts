/**
 * Strict validation of our own requests before anything is sent: the shared zod schemas plus the rules
 * a schema cannot express (upload formats and image sizes from the bytes, face verify image mix, bulk
 * CSV layout).
 * Every problem is reported with a path naming the field (`images[0].data`), never with the value.
 */
import type * as z from 'zod/mini';
import { MIN_UPLOAD_HEIGHT, MIN_UPLOAD_WIDTH } from '../api/enums';
import {
  type FaceVerifyRequest,
  faceVerifyRequestSchema,
  type IdVerifyRequest,
  idVerifyRequestSchema,
} from '../api/schemas';
import { allowedUploadContentTypes, describeAllowedUploads } from '../api/upload-formats';
import { imageDimensions, sniffContentType } from '../image';
import { RequestValidationError, type ValidationIssue } from './errors';

/** Path segments as the messages show them: `images[0].data`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}

/** Zod issues as validation issues; an unknown key becomes one issue per key naming it. */
export function issuesFromZod(error: z.core.$ZodError): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ path: formatPath([...issue.path, key]), message: 'is not a field of this request' });
      }
      continue;
    }
    issues.push({ path: formatPath(issue.path) || '(request)', message: issue.message });
  }
  return issues;
}

/** Parses `value` with a strict request schema or throws `RequestValidationError` listing every issue. */
export function validateRequest<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  context: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RequestValidationError(issuesFromZod(parsed.error), `invalid ${context}`);
  return parsed.data;
}

/**
 * Identity upload (§4.5): the schema plus every upload in a format its type allows (images of a
 * readable format, a PDF for a payroll tax statement; see `shared/api/upload-formats.ts`) and every
 * image at least 640×480 (§8).
 */
export function validateIdVerifyRequest(request: unknown): IdVerifyRequest {
  const parsed = validateRequest(idVerifyRequestSchema, request, 'identity upload request');
  const issues: ValidationIssue[] = [];
  parsed.images.forEach((image, i) => {
    const bytes = Buffer.from(image.data, 'base64');
    const path = `images[${i}].data`;
    const contentType = sniffContentType(bytes).contentType;
    if (!allowedUploadContentTypes(image.type).includes(contentType)) {
      issues.push({ path, message: `is not ${describeAllowedUploads(image.type)}` });
      return;
    }
    if (contentType === 'application/pdf') return;
    const dims = imageDimensions(bytes);
    if (!dims) {
      issues.push({
        path,
        message: `is not ${describeAllowedUploads(image.type)} (its size cannot be checked)`,
      });
    } else if (dims.width < MIN_UPLOAD_WIDTH || dims.height < MIN_UPLOAD_HEIGHT) {
      issues.push({
        path,
        message: `image is ${dims.width}×${dims.height} pixels; the minimum is ${MIN_UPLOAD_WIDTH}×${MIN_UPLOAD_HEIGHT}`,
      });
    }
  });
  if (issues.length > 0) throw new RequestValidationError(issues, 'invalid identity upload request');
  return parsed;
}

/** Minimum numbers of images per type for face verify (§4.4: one compare image and several live ones). */
export const MIN_COMPARE_IMAGES = 1;
export const MIN_LIVE_IMAGES = 2;

/** Face verify (§4.4): the schema plus at least one COMPARE and two LIVE images. */
export function validateFaceVerifyRequest(request: unknown): FaceVerifyRequest {
  const parsed = validateRequest(faceVerifyRequestSchema, request, 'face verify request');
  const count = (type: string) => parsed.images.filter((image) => image.type === type).length;
  const issues: ValidationIssue[] = [];
  if (count('COMPARE') < MIN_COMPARE_IMAGES) {
    issues.push({ path: 'images', message: 'must contain a COMPARE image' });
  }
  if (count('LIVE') < MIN_LIVE_IMAGES) {
    issues.push({ path: 'images', message: `must contain at least ${MIN_LIVE_IMAGES} LIVE images` });
  }
  if (issues.length > 0) throw new RequestValidationError(issues, 'invalid face verify request');
  return parsed;
}

/**
 * Base64 of a CSV text (UTF-8), as the `file` field of the bulk request wants it. A leading byte order
 * mark is dropped: strict in what we send, the service gets plain UTF-8.
 */
export function encodeBulkCsv(text: string): string {
  return Buffer.from(text.replace(/^\uFEFF/, ''), 'utf8').toString('base64');
}
