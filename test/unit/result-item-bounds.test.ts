/**
 * The result item stays under DynamoDB's 400 KB whatever the result holds (issue 10): thousands of images,
 * thousands of reason codes, sections the spec does not list. What does not fit stays in result.json.
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { withFullDocument } from '../../shared/queries/results';
import { dynamoItemSize, MAX_ITEM_BYTES } from '../../shared/store/item';
import { imageKey } from '../../shared/store/keys';
import type { ObjectRef } from '../../shared/stream/blob-sink';
import { storedItemOf } from '../support/result-items';

function refs(count: number): ObjectRef[] {
  return Array.from({ length: count }, (_, i) => ({
    key: imageKey('r', i, { documentType: 'IDENTITY_CARD', pageType: 'FRONT' }, 'jpg'),
    contentType: 'image/jpeg',
    bytes: 1_234_567,
    sha256: 'ab'.repeat(32),
  }));
}

describe('bounded result item', () => {
  it('keeps the summary and the object count for 5,000 images, the list itself only in result.json', () => {
    // Prepare
    const objects = refs(5_000);
    const document = { result: 'APPROVED', images: objects.map((ref) => ({ data: ref, metadata: {} })) };

    // Act
    const built = storedItemOf(document, objects);

    // Assess
    expect(dynamoItemSize(built)).toBeLessThanOrEqual(MAX_ITEM_BYTES);
    expect(built).toMatchObject({ documentInItem: false, objectCount: 5_000, result: 'APPROVED' });
    expect(built.objects).toBeUndefined();
    expect(built.document).toBeUndefined();
  });

  it('keeps as many of 3,000 reason codes as fit and says how many there are', () => {
    // Prepare
    const messages = Array.from({ length: 3_000 }, (_, i) => `REASON_${i}_${'X'.repeat(200)}`);

    // Act
    const built = storedItemOf({ result: 'DISAPPROVED', messages });

    // Assess
    expect(dynamoItemSize(built)).toBeLessThanOrEqual(MAX_ITEM_BYTES);
    expect(built.messageCount).toBe(3_000);
    expect(built.messages!.length).toBeGreaterThan(0);
    expect(built.messages).toEqual(messages.slice(0, built.messages!.length));
    expect(built.documentInItem).toBe(false);
  });

  it('bounds a result with large sections the spec does not list, and with all three at once', () => {
    // Prepare
    const objects = refs(5_000);
    const document = {
      result: 'DISAPPROVED',
      messages: Array.from({ length: 3_000 }, (_, i) => `R${i}`.padEnd(256, '_')),
      images: objects.map((ref) => ({ data: ref })),
      futureSection: { result: 'APPROVED', blob: 'y'.repeat(2_000_000) },
      anotherOne: Array.from({ length: 10_000 }, (_, i) => ({ i, flag: true })),
    };

    // Act
    const built = storedItemOf(document, objects);

    // Assess
    expect(dynamoItemSize(built)).toBeLessThanOrEqual(MAX_ITEM_BYTES);
    expect(built).toMatchObject({ documentInItem: false, objectCount: 5_000, messageCount: 3_000 });
  });

  it('still puts a small result whole into the item', () => {
    // Act
    const built = storedItemOf(
      { result: 'APPROVED', messages: ['A'], images: [{ data: refs(1)[0] }] },
      refs(1),
    );

    // Assess
    expect(built).toMatchObject({ documentInItem: true, objectCount: 1, messages: ['A'] });
    expect(built).not.toHaveProperty('messageCount');
    expect(built.document).toBeDefined();
  });
});

describe('idv results get on a bounded item', () => {
  it('reads the whole document, every reference and every reason code back from result.json', async () => {
    // Prepare
    const objects = refs(5_000);
    const messages = Array.from({ length: 3_000 }, (_, i) => `R${i}`.padEnd(256, '_'));
    const document = { result: 'DISAPPROVED', messages, images: objects.map((ref) => ({ data: ref })) };
    const text = JSON.stringify(document);
    const built = storedItemOf(document, objects);
    const requested: unknown[] = [];
    const s3 = {
      send: async (command: { input: unknown }) => {
        requested.push(command.input);
        return {
          Body: { transformToString: async () => text },
          Metadata: { sha256: createHash('sha256').update(text).digest('hex') },
        };
      },
    } as unknown as S3Client;

    // Act
    const full = await withFullDocument({ s3, dynamo: undefined as never, tableName: 't' }, built);

    // Assess
    expect(requested).toEqual([{ Bucket: 'bucket', Key: 'results/r/result.json' }]);
    expect(full.document).toEqual(document);
    expect(full.objects).toEqual(objects);
    expect(full.messages).toEqual(messages);
  });
});
