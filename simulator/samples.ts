/**
 * Sample images the hosted flow offers a tester (`simulator/hosted-flow.ts`): synthetic documents and
 * faces drawn by `images.ts` at start of use (no binary files, no real person), each at least
 * 640 × 480 so the upload rules (§4.5, §8) and `POST /facequality` approve them.
 */
import type { UploadImageType } from '../shared/api/enums';
import { generateJpeg, type PictureKind, shareBase64 } from './images';
import { type UploadInput, uploadOf } from './result-images';

/** One sample: how it is drawn and what upload it stands for. */
export interface Sample {
  readonly name: string;
  readonly label: string;
  readonly kind: PictureKind;
  readonly width: number;
  readonly height: number;
  /** The upload it makes: its type, and `additionalDocumentType` for an ADDITIONAL document. */
  readonly upload: { readonly type: UploadImageType; readonly additionalDocumentType?: string };
}

// ID-1 cards are 85.6 × 54 mm, a passport's data page 125 × 88 mm; selfies are portrait captures.
const CARD = { kind: 'document', width: 1024, height: 646 } as const;
const PAGE = { kind: 'document', width: 1024, height: 720 } as const;
const FACE = { kind: 'portrait', width: 720, height: 960 } as const;

/** Every sample, by name (the name is the last part of its address, `/samples/NAME.jpg`). */
export const SAMPLES: readonly Sample[] = [
  { name: 'passport', label: 'Passport (data page)', ...PAGE, upload: { type: 'PASSPORT' } },
  { name: 'id-card-front', label: 'Identity card, front', ...CARD, upload: { type: 'IDENTITY_CARD' } },
  { name: 'id-card-back', label: 'Identity card, back', ...CARD, upload: { type: 'IDENTITY_CARD' } },
  {
    name: 'residence-permit',
    label: 'Residence permit, front',
    ...CARD,
    upload: { type: 'RESIDENCE_PERMIT' },
  },
  {
    name: 'driving-license-front',
    label: 'Driving licence, front',
    ...CARD,
    upload: { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE' },
  },
  {
    name: 'driving-license-back',
    label: 'Driving licence, back',
    ...CARD,
    upload: { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE' },
  },
  { name: 'selfie', label: 'Selfie', ...FACE, upload: { type: 'COMPARE' } },
  { name: 'live-1', label: 'Live frame 1', ...FACE, upload: { type: 'LIVE' } },
  { name: 'live-2', label: 'Live frame 2', ...FACE, upload: { type: 'LIVE' } },
  {
    name: 'residence-permit-back',
    label: 'Residence permit, back',
    ...CARD,
    upload: { type: 'RESIDENCE_PERMIT' },
  },
];
// New samples go last: a sample's pixels are seeded by its place in this list.

const bytesOf = new Map<string, Buffer>();

/** The JPEG of the sample `name`, drawn on first use and kept; undefined for an unknown name. */
export function sampleJpeg(name: string): Buffer | undefined {
  const index = SAMPLES.findIndex((s) => s.name === name);
  const sample = SAMPLES[index];
  if (!sample) return undefined;
  let bytes = bytesOf.get(name);
  if (!bytes) {
    // A seed per sample: each document gets its own tint and each face its own colours.
    bytes = generateJpeg(sample.width, sample.height, 1000 + index, sample.kind);
    bytesOf.set(name, bytes);
  }
  return bytes;
}

/** The samples a document choice of the hosted flow uploads, in order (front before back). */
export const DOCUMENT_SAMPLES = {
  passport: ['passport'],
  'identity-card': ['id-card-front', 'id-card-back'],
  'residence-permit': ['residence-permit', 'residence-permit-back'],
} as const satisfies Record<string, readonly string[]>;
export type DocumentChoice = keyof typeof DOCUMENT_SAMPLES;

export const DRIVING_LICENSE_SAMPLES = ['driving-license-front', 'driving-license-back'] as const;
export const FACE_SAMPLES = ['selfie', 'live-1', 'live-2'] as const;

/**
 * The upload the hosted flow makes of the sample `name`: its type and its bytes, which the result
 * returns (`result-images.ts`); the bytes' base64 is shared by every result that uploads this sample.
 */
export function sampleUpload(name: string): UploadInput {
  const s = sample(name);
  const upload = uploadOf(s.upload, sampleJpeg(name)!);
  shareBase64(upload.data!);
  return upload;
}

/** The sample named `name` (one of the constants above). */
export function sample(name: string): Sample {
  const s = SAMPLES.find((x) => x.name === name);
  if (!s) throw new RangeError(`no sample ${name}`);
  return s;
}
