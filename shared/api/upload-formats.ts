/**
 * What an uploaded `images[].data` may hold, per upload image type (§2.1, §4.4, §4.5). The spec calls
 * every upload a "base64 image"; the one type it returns as a file rather than an image is the payroll
 * tax statement (§2.1 result file documentType: PAYROLL_TAX_STATEMENT), so that type may also be a PDF
 * document. Images must be of a format whose pixel size can be read, because identity uploads must be
 * at least 640 × 480 (§8). Shared data of the spec: the client and the simulator each apply it.
 */
import type { UploadImageType } from './enums';

/** Image formats whose pixel size `imageDimensions` reads (content types from `sniffContentType`). */
export const UPLOAD_IMAGE_CONTENT_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/tiff',
] as const;

/** Upload types that may also be a PDF document: returned in `files`, not `images` (§2.1). */
export const PDF_UPLOAD_TYPES: readonly UploadImageType[] = ['PAYROLL_TAX_STATEMENT'];

/** Content types allowed for an upload of `type` (an image without a type is treated as an image). */
export function allowedUploadContentTypes(type: UploadImageType | undefined): readonly string[] {
  return type !== undefined && PDF_UPLOAD_TYPES.includes(type)
    ? [...UPLOAD_IMAGE_CONTENT_TYPES, 'application/pdf']
    : UPLOAD_IMAGE_CONTENT_TYPES;
}

/** The allowed formats in words, for error messages: `JPEG, PNG, WebP, GIF or TIFF image (or PDF)`. */
export function describeAllowedUploads(type: UploadImageType | undefined): string {
  const pdf = type !== undefined && PDF_UPLOAD_TYPES.includes(type);
  return `a readable JPEG or PNG image (WebP, GIF and TIFF are accepted too${pdf ? ', and a PDF document for this type' : ''})`;
}
