/**
 * The byte layout of the size bench's generated result bodies (`stream-service.ts` writes them), apart
 * from the service so that the floor bench (`size-worker.ts`, `floor`) can find each image's base64 in the
 * same body without parsing it.
 */

/** What one generated result holds. */
export interface GeneratedResult {
  images: number;
  imageBytes: number;
}

const DOCUMENT_TYPES = ['PASSPORT', 'IDENTITY_CARD', 'DRIVING_LICENSE'] as const;
const PAGE_TYPES = ['FRONT', 'BACK'] as const;

/** The body up to the first image. */
export function bodyHead(resultId: string): string {
  // Sections and messages the store reads; the images follow, the files list closes the body.
  return `{"resultId":${JSON.stringify(resultId)},"result":"APPROVED","messages":["BENCH_GENERATED"],"identity":{"result":"APPROVED","messages":[]},"images":[`;
}

/** The body after the last image. */
export const BODY_TAIL = '],"files":[]}';

/** Image `index`'s entry up to the first character of its base64. */
export function imageHead(index: number): string {
  const documentType = DOCUMENT_TYPES[index % DOCUMENT_TYPES.length];
  const pageType = PAGE_TYPES[index % PAGE_TYPES.length];
  return `${index > 0 ? ',' : ''}{"documentType":"${documentType}","pageType":"${pageType}","data":"`;
}

/** Image entry after its base64. */
export const IMAGE_TAIL = '"}';

/** Characters of the base64 of `bytes` decoded bytes (padded). */
export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/** Exact size of a generated body. */
export function generatedBodyBytes(resultId: string, spec: GeneratedResult): number {
  let n = Buffer.byteLength(bodyHead(resultId)) + BODY_TAIL.length;
  for (let i = 0; i < spec.images; i++) {
    n += Buffer.byteLength(imageHead(i)) + base64Length(spec.imageBytes) + IMAGE_TAIL.length;
  }
  return n;
}

/** Where each image's base64 is in the body: `[start, end)` byte offsets. */
export function imageSpans(resultId: string, spec: GeneratedResult): [number, number][] {
  const spans: [number, number][] = [];
  let at = Buffer.byteLength(bodyHead(resultId));
  for (let i = 0; i < spec.images; i++) {
    at += Buffer.byteLength(imageHead(i));
    const end = at + base64Length(spec.imageBytes);
    spans.push([at, end]);
    at = end + IMAGE_TAIL.length;
  }
  return spans;
}
