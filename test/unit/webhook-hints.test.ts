/**
 * Hints never become data: forged webhook bodies carrying planted personal data leave none of it in the
 * queue message, the UNAVAILABLE item, the events or the log lines (docs/reliability.md).
 */
import { describe, expect, it } from 'vitest';
import { processQueueRecord } from '../../shared/pipeline/fetch-result';
import { confirmedOnly, parseQueueMessage, type QueueMessage } from '../../shared/pipeline/messages';
import { handleWebhook } from '../../shared/pipeline/webhook';
import {
  FakePublications,
  FakePublisher,
  FakeSource,
  FakeStore,
  memoryLogger,
} from '../support/pipeline-fakes';

const SECRET = 'S'.repeat(40);
/** Personal data an attacker who knows the secret path could plant. */
const PLANTED = ['Jan Planted-Jansen', '1985-03-12', 'NL-PASS-X99', '999999990', 'planted@example.invalid'];
const NOW = new Date('2026-08-11T08:00:00.000Z');

/** A forged body: a well-formed id plus every field name a sender might use, each carrying planted data. */
function forged(idField: 'resultId' | 'transactionId', id: string): Record<string, unknown> {
  const [name, dob, doc, bsn, mail] = PLANTED;
  return {
    [idField]: id,
    transactionId: idField === 'transactionId' ? id : `${name}`,
    customerReference: name,
    customer_reference: doc,
    userId: mail,
    product: bsn,
    completed: dob,
    completedAt: dob,
    uploadedAt: dob,
    timestamp: dob,
    secureId: `${name} ${doc}`,
    data: { customerReference: bsn, name, dateOfBirth: dob },
  };
}

async function webhook(route: 'result' | 'upload', body: unknown): Promise<QueueMessage[]> {
  const enqueued: QueueMessage[] = [];
  const response = await handleWebhook(
    { route, token: SECRET, body: JSON.stringify(body), isBase64Encoded: false },
    { secret: async () => SECRET, enqueue: async (m) => void enqueued.push(m), now: () => NOW },
  );
  expect(response.statusCode).toBe(202);
  return enqueued;
}

function expectNoPlanted(text: string): void {
  for (const value of PLANTED) expect(text.includes(value), `planted "${value}" leaked`).toBe(false);
}

describe('forged webhook hints', () => {
  it('a result webhook enqueues the resultId and nothing else', async () => {
    // Act
    const enqueued = await webhook('result', forged('resultId', 'unknown-result-1'));

    // Assess
    expect(enqueued).toEqual([{ resultId: 'unknown-result-1', source: 'webhook' }]);
  });

  it('an upload webhook enqueues validated identifiers and our own receive time only', async () => {
    // Act
    const withPlanted = await webhook('upload', forged('transactionId', 'tx-upload-1'));
    const wellFormed = await webhook('upload', { transactionId: 'tx-upload-2', secureId: 'sec-2' });

    // Assess
    expect(withPlanted).toEqual([
      { kind: 'upload', transactionId: 'tx-upload-1', uploadedAt: NOW.toISOString() },
    ]);
    expect(wellFormed).toEqual([
      { kind: 'upload', transactionId: 'tx-upload-2', secureId: 'sec-2', uploadedAt: NOW.toISOString() },
    ]);
  });

  it('an unknown resultId becomes an UNAVAILABLE item and event carrying only the resultId', async () => {
    // Prepare
    const [message] = await webhook('result', forged('resultId', 'unknown-result-2'));
    const store = new FakeStore();
    const publisher = new FakePublisher();
    const { logger, lines } = memoryLogger();
    const deps = {
      source: new FakeSource(new Map()),
      store,
      publications: new FakePublications(store),
      publisher,
      environment: 'staging' as const,
      retentionDays: 30,
      logger,
      now: () => NOW,
    };

    // Act
    const outcome = await processQueueRecord(JSON.stringify(message), deps);

    // Assess
    expect(outcome).toBe('unavailable');
    const item = store.items.get('unknown-result-2');
    expect(item).toMatchObject({ resultId: 'unknown-result-2', status: 'UNAVAILABLE' });
    expect(item).not.toHaveProperty('customerReference');
    expect(item).not.toHaveProperty('userId');
    expect(item).not.toHaveProperty('transactionId');
    expect(publisher.unavailable).toHaveLength(1);
    expect(publisher.unavailable[0]).not.toHaveProperty('customerReference');
    expectNoPlanted(JSON.stringify([item, publisher.unavailable, lines]));
  });

  it('an upload event carries no planted text, and neither do the log lines', async () => {
    // Prepare
    const [message] = await webhook('upload', forged('transactionId', 'tx-upload-3'));
    const publisher = new FakePublisher();
    const { logger, lines } = memoryLogger();

    const store = new FakeStore();

    // Act
    await processQueueRecord(JSON.stringify(message), {
      source: new FakeSource(new Map()),
      store,
      publications: new FakePublications(store),
      publisher,
      environment: 'staging',
      retentionDays: 30,
      logger,
      now: () => NOW,
    });

    // Assess
    expect(publisher.uploaded).toEqual([
      { transactionId: 'tx-upload-3', uploadedAt: NOW.toISOString(), environment: 'staging' },
    ]);
    expectNoPlanted(JSON.stringify(lines));
  });

  it('messages of earlier versions lose their unconfirmed hints when parsed (a redrive cannot bring them back)', () => {
    // Prepare
    const oldWebhook = { resultId: 'r-old', source: 'webhook', customerReference: PLANTED[0], userId: 'u' };
    const oldUpload = {
      kind: 'upload',
      transactionId: 'tx-old',
      customerReference: PLANTED[0],
      secureId: 'a b',
    };
    const poll = { resultId: 'r-poll', source: 'poll', customerReference: 'ref-from-service', userId: 'u-1' };

    // Act
    const parsed = [oldWebhook, oldUpload, poll].map((m) => parseQueueMessage(JSON.stringify(m)));

    // Assess
    expect(parsed).toEqual([
      { resultId: 'r-old', source: 'webhook' },
      { kind: 'upload', transactionId: 'tx-old' },
      poll,
    ]);
    expect(confirmedOnly(parsed[2]!)).toBe(parsed[2]);
  });
});
