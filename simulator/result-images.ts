/**
 * Which result image (spec §2.5 `images`) each upload (§4.4, §4.5 `images`) becomes: its own bytes, its
 * `documentType`, its page and its `customerReference`. Uploads carry no page, so the page follows the
 * order of the uploads of one document: a two-sided document's first image is its FRONT, the second its
 * BACK, any further one ANY (a residence permit's third is its RESIDENCE_PERMIT_STICKERS); a passport has
 * one data page (FRONT); every other document is ANY.
 */
import {
  RESULT_IMAGE_DOCUMENT_TYPES,
  type ResultImageDocumentType,
  type ResultImagePageType,
} from '../shared/api/enums';
import { imageDimensions, sniffContentType } from '../shared/image';
import type { DocumentKind } from './fake-identity';
import type { ImageSlot } from './images';

/** What the simulator keeps of an upload: its type, references and bytes (base64) with their metadata. */
export interface UploadInput {
  readonly type?: string;
  readonly additionalDocumentType?: string;
  readonly customerReference?: string;
  /** The uploaded bytes, base64 (standard alphabet, padded): the result returns them as they are. */
  readonly data?: string;
  readonly metadata?: UploadMetadata;
}

/** The `metadata` of a result image: its content type and, for an image whose size reads, the size. */
export interface UploadMetadata {
  readonly contentType: string;
  readonly width?: number;
  readonly height?: number;
}

/** What the simulator keeps of one uploaded image (§4.4, §4.5 `images` entry) whose bytes are `bytes`. */
export function uploadOf(
  image: {
    readonly type?: string;
    readonly additionalDocumentType?: string;
    readonly customerReference?: string;
  },
  bytes: Buffer,
): UploadInput {
  const dims = imageDimensions(bytes);
  return {
    ...(image.type !== undefined ? { type: image.type } : {}),
    ...(image.additionalDocumentType !== undefined
      ? { additionalDocumentType: image.additionalDocumentType }
      : {}),
    ...(image.customerReference !== undefined ? { customerReference: image.customerReference } : {}),
    data: bytes.toString('base64'),
    metadata: { contentType: sniffContentType(bytes).contentType, ...(dims ?? {}) },
  };
}

/** A result image an upload turned into: its own bytes, else (an upload kept without them) the pool slot's. */
export interface UploadedPage {
  readonly documentType: ResultImageDocumentType;
  readonly pageType: ResultImagePageType;
  readonly slot: ImageSlot;
  readonly customerReference?: string;
  readonly data?: string;
  readonly metadata?: UploadMetadata;
}

const IDENTITY_KINDS: readonly string[] = ['PASSPORT', 'IDENTITY_CARD', 'RESIDENCE_PERMIT'];
const TWO_SIDED: readonly string[] = ['IDENTITY_CARD', 'RESIDENCE_PERMIT', 'DRIVING_LICENSE'];

/** The identity document the uploads show: the first PASSPORT, IDENTITY_CARD or RESIDENCE_PERMIT. */
export function uploadedIdentityKind(uploads: readonly UploadInput[]): DocumentKind | undefined {
  return uploads.find((u) => u.type !== undefined && IDENTITY_KINDS.includes(u.type))?.type as
    | DocumentKind
    | undefined;
}

/**
 * The result document type of one upload, or undefined when it is no image of the result: a
 * PAYROLL_TAX_STATEMENT comes back as a file (§2.5 `files`). An ADDITIONAL or PAPER upload is what its
 * `additionalDocumentType` names when results know that type, else the generic PAPER; an upload
 * without a type is the identity document (`identityKind`).
 */
export function resultDocumentType(
  upload: UploadInput,
  identityKind: DocumentKind,
): ResultImageDocumentType | undefined {
  const { type, additionalDocumentType } = upload;
  if (type === undefined) return identityKind;
  if (type === 'PAYROLL_TAX_STATEMENT') return undefined;
  if (type === 'ADDITIONAL' || type === 'PAPER') {
    return isResultDocumentType(additionalDocumentType) ? additionalDocumentType : 'PAPER';
  }
  return isResultDocumentType(type) ? type : 'PAPER';
}

function isResultDocumentType(s: string | undefined): s is ResultImageDocumentType {
  return s !== undefined && (RESULT_IMAGE_DOCUMENT_TYPES as readonly string[]).includes(s);
}

/** The result images of `uploads`, in upload order, each with its page and its own reference. */
export function uploadedPages(uploads: readonly UploadInput[], identityKind: DocumentKind): UploadedPage[] {
  const seen = new Map<string, number>();
  const pages: UploadedPage[] = [];
  for (const upload of uploads) {
    const documentType = resultDocumentType(upload, identityKind);
    if (documentType === undefined) continue;
    const n = seen.get(documentType) ?? 0;
    seen.set(documentType, n + 1);
    const pageType = pageOf(documentType, n);
    pages.push({
      documentType,
      pageType,
      slot: slotOf(documentType, pageType),
      ...(upload.customerReference !== undefined ? { customerReference: upload.customerReference } : {}),
      ...(upload.data !== undefined ? { data: upload.data } : {}),
      ...(upload.metadata !== undefined ? { metadata: upload.metadata } : {}),
    });
  }
  return pages;
}

/** The page of the `n`-th (0-based) upload of a document type. */
function pageOf(documentType: ResultImageDocumentType, n: number): ResultImagePageType {
  if (documentType === 'RESIDENCE_PERMIT' && n === 2) return 'RESIDENCE_PERMIT_STICKERS';
  if (TWO_SIDED.includes(documentType)) return n === 0 ? 'FRONT' : n === 1 ? 'BACK' : 'ANY';
  if (documentType === 'PASSPORT') return n === 0 ? 'FRONT' : 'ANY';
  return 'ANY';
}

/** The pool slot whose pixels stand for an upload kept without its bytes. */
function slotOf(documentType: ResultImageDocumentType, pageType: ResultImagePageType): ImageSlot {
  switch (documentType) {
    case 'LIVE':
    case 'COMPARE':
      return 'live';
    case 'PORTRAIT':
      return 'portrait';
    case 'SIGNATURE':
      return 'signature';
    default:
      return pageType === 'FRONT' ? 'documentFront' : 'documentBack';
  }
}
