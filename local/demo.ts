import jpeg from 'jpeg-js';
import type { MockTestValue, Product } from '../shared/api/enums';
import { MIN_UPLOAD_HEIGHT, MIN_UPLOAD_WIDTH } from '../shared/api/enums';
import type { IdvClient } from '../shared/client';

/** One demo transaction to create. */
export interface DemoPlan {
  kind: 'secureLink' | 'idVerify';
  product: Product;
  /** `undefined`: no `mock-test` header, so the transaction completes after the simulator's delay. */
  mockTest: MockTestValue | undefined;
  customerReference: string;
  /** The deliberate demo failure: its result is served broken until it reached the DLQ (see {@link DEMO_FAILURE_INDEX}). */
  failsFirst?: true;
}

/**
 * Which demo transaction fails on purpose (the second, so the first result arrives as it should): the
 * simulator serves its result with an image `data` that is not base64, the pipeline refuses each fetch as
 * DATA_NOT_BASE64, and a message lands in the DLQ once the queue's receives are used up. The run then tells
 * the simulator to serve the result as it is (`Demo.failureSeen`), so the redrive stores it. Until then
 * every fetch is broken, whichever message it serves: the webhook's and, when the retries outlast a poll
 * interval (a loaded machine), the poll's — so one of them always reaches the DLQ.
 */
export const DEMO_FAILURE_INDEX = 1;

/** Label of the deliberate failure on its `+ created` line. */
export const DEMO_FAILURE_LABEL = '(demo: fails first, redrive it)';

const SECURE_LINK_MIX: [Product, MockTestValue | undefined][] = [
  ['IDV_STANDARD', 'APPROVED'],
  ['RTW_STANDARD', 'APPROVED_RP'],
  ['IDV_PREMIUM', 'APPROVED_EU'],
  ['IDV_LITE', undefined],
  ['RTW_PREMIUM', 'DISAPPROVED'],
  ['IDV_STANDARD', undefined],
];
const ID_VERIFY_MIX: [Product, MockTestValue | undefined][] = [
  ['IDV_STANDARD', 'APPROVED_NON_EU'],
  ['IDV_LITE', 'TECHNICAL_REJECT'],
  ['RTW_STANDARD', undefined],
];

/**
 * The first `count` demo transactions: two secure links for every identity upload, cycling through
 * products and `mock-test` outcomes, every third or so without `mock-test` (completes after a delay).
 * `withFailure` marks the deliberate failure (when there are at least two).
 */
export function demoPlan(count: number, runId: string, withFailure = false): DemoPlan[] {
  return Array.from({ length: count }, (_, index) => {
    const upload = index % 3 === 2;
    const mix = upload ? ID_VERIFY_MIX : SECURE_LINK_MIX;
    const position = upload ? Math.floor(index / 3) : index - Math.floor(index / 3);
    const [product, mockTest] = mix[position % mix.length]!;
    return {
      kind: upload ? 'idVerify' : 'secureLink',
      product,
      mockTest,
      customerReference: `demo-${runId}-${String(index + 1).padStart(3, '0')}`,
      ...(withFailure && index === DEMO_FAILURE_INDEX ? { failsFirst: true as const } : {}),
    };
  });
}

let cachedImage: string | undefined;

/** A plain grey JPEG of the minimum upload size (no person, no document), base64. */
export function demoImage(): string {
  if (!cachedImage) {
    const width = MIN_UPLOAD_WIDTH;
    const height = MIN_UPLOAD_HEIGHT;
    const data = Buffer.alloc(width * height * 4, 0xa0);
    cachedImage = jpeg.encode({ data, width, height }, 50).data.toString('base64');
  }
  return cachedImage;
}

/** Creates one demo transaction through the client and returns its transactionId. */
export async function createDemoTransaction(client: IdvClient, plan: DemoPlan): Promise<string> {
  const options = plan.mockTest ? { mockTest: plan.mockTest } : {};
  if (plan.kind === 'secureLink') {
    const link = await client.createSecureLink(
      { product: plan.product, customerReference: plan.customerReference, disableCommunication: true },
      options,
    );
    return link.transactionId;
  }
  const upload = await client.verifyIdentity(
    {
      product: plan.product as 'IDV_LITE' | 'IDV_STANDARD' | 'RTW_STANDARD',
      customerReference: plan.customerReference,
      images: [{ data: demoImage(), type: 'PASSPORT' }],
    },
    options,
  );
  return upload.transactionId;
}
