import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CustomerReferenceMode } from '../../shared/config';
import { changedDetail, reasonKeys, sectionValues, storedDetail } from '../../shared/events/details';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { type FetchResultDeps, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { buildStoredItem, type ResultItem } from '../../shared/store/item';
import type { ResultVersion } from '../../shared/store/versions';
import {
  eventValidators,
  FakePublications,
  FakeSource,
  FakeStore,
  memoryLogger,
} from '../support/pipeline-fakes';

/** Personal data and a credential, as a buggy or compromised service could put them anywhere. */
const NAME = 'Jane Doe';
const BIRTH_DATE = '1970-01-01';
const DOCUMENT_NUMBER = 'NL1234567';
const TOKEN = 'Bearer x.y.z';
const EMAIL = 'jane@example.com';
const PLANTED = [NAME, BIRTH_DATE, DOCUMENT_NUMBER, TOKEN, EMAIL, 'x.y.z'];

/**
 * A result whose every event-bound value is planted (the resultId alone is well-formed). Its reference is
 * code-shaped: such a value passes when references are included (see the test on `include` below).
 */
const plantedResult = (customerReference: string) => ({
  transactionId: NAME,
  customerReference,
  userId: EMAIL,
  result: TOKEN,
  messages: [NAME, BIRTH_DATE, DOCUMENT_NUMBER, TOKEN, EMAIL, 'DOCUMENT_EXPIRED'],
  identity: {
    result: DOCUMENT_NUMBER,
    data: {
      name: { fullname: NAME },
      dateOfBirth: BIRTH_DATE,
      documentNumber: DOCUMENT_NUMBER,
      documentType: DOCUMENT_NUMBER,
      issuingStateOrOrganization: NAME,
    },
  },
  rightToWork: { result: BIRTH_DATE, rtwType: TOKEN },
  faceVerify: { result: NAME },
  additionalDocuments: [{ result: DOCUMENT_NUMBER }, { result: 'APPROVED' }],
});

/** Poll metadata (queue message hints) with every hint planted. */
const pollMessage = (resultId: string, customerReference: string) => ({
  resultId,
  source: 'poll',
  transactionId: TOKEN,
  product: NAME,
  customerReference,
  userId: NAME,
  completed: '2026-08-10T12:00:00Z',
});

const ebMock = mockClient(EventBridgeClient);

/** Runs queue messages through fetch-result with the real EventBridge publisher on a mocked client. */
async function publishAll(bodies: unknown[], mode: CustomerReferenceMode) {
  const { logger, lines } = memoryLogger();
  const store = new FakeStore();
  const deps: FetchResultDeps = {
    source: new FakeSource(new Map([['r-stored', plantedResult(mode === 'omit' ? BIRTH_DATE : NAME)]])),
    store,
    publications: new FakePublications(store),
    publisher: new EventBridgePublisher(new EventBridgeClient({ region: 'eu-west-1' }), 'bus'),
    environment: 'production',
    eventCustomerReference: mode,
    retentionDays: 30,
    logger,
    now: () => new Date('2026-08-11T00:00:00.000Z'),
  };
  const outcomes = await Promise.allSettled(
    bodies.map((body) => processQueueRecord(JSON.stringify(body), deps)),
  );
  const events = ebMock.commandCalls(PutEventsCommand).flatMap((call) =>
    (call.args[0].input.Entries ?? []).map((entry) => ({
      detailType: entry.DetailType!,
      text: entry.Detail!,
      detail: JSON.parse(entry.Detail!) as Record<string, unknown>,
    })),
  );
  return { outcomes, events, lines };
}

describe('event details carry no service text', () => {
  beforeEach(() => {
    ebMock.reset();
    ebMock.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e' }] });
  });

  it.each<CustomerReferenceMode>(['omit', 'include'])(
    'planted in the result and the poll metadata, nothing reaches an event or a log line (%s)',
    async (mode) => {
      // Prepare
      const validators = eventValidators();
      // Omitted, any reference is planted; included, only references that are not code-shaped.
      const reference = mode === 'omit' ? DOCUMENT_NUMBER : EMAIL;
      const bodies = [
        pollMessage('r-stored', reference),
        pollMessage('r-missing', reference),
        { kind: 'upload', transactionId: 'tx-9', secureId: TOKEN, customerReference: NAME },
      ];

      // Act
      const { outcomes, events, lines } = await publishAll(bodies, mode);

      // Assess
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      expect(events.map((e) => e.detailType).sort()).toEqual([
        'VerificationDocumentsUploaded',
        'VerificationResultStored',
        'VerificationResultUnavailable',
      ]);
      for (const event of events) {
        const validate = validators[event.detailType as keyof typeof validators];
        expect(validate(event.detail), JSON.stringify(validate.errors)).toBe(true);
        for (const planted of PLANTED) expect(event.text).not.toContain(planted);
      }
      for (const planted of PLANTED) expect(lines.join('\n')).not.toContain(planted);
      const stored = events.find((e) => e.detailType === 'VerificationResultStored')!.detail;
      expect(stored).toMatchObject({
        resultId: 'r-stored',
        product: 'UNKNOWN',
        result: 'UNKNOWN',
        sections: { identity: 'UNKNOWN', rightToWork: 'UNKNOWN', faceVerify: 'UNKNOWN' },
        messages: ['DOCUMENT_EXPIRED'],
        messagesDropped: 5,
        additionalDocumentResults: ['UNKNOWN', 'APPROVED'],
      });
      for (const field of ['transactionId', 'customerReference', 'userId', 'rtwType', 'documentType']) {
        expect(stored, field).not.toHaveProperty(field);
      }
    },
  );

  it('refuses an upload message whose transactionId is not an id: no event', async () => {
    // Act
    const { outcomes, events, lines } = await publishAll(
      [{ kind: 'upload', transactionId: `${NAME} ${BIRTH_DATE}` }],
      'include',
    );

    // Assess
    expect(outcomes[0]!.status).toBe('rejected');
    expect(events).toEqual([]);
    expect(lines.join('\n')).not.toContain(NAME);
  });

  it('include keeps a code-shaped reference, which may be personal data: the reason production omits', () => {
    // Prepare
    const item = storedItem({ customerReference: BIRTH_DATE });

    // Act
    const included = storedDetail(item, options('include'));
    const omitted = storedDetail(item, options('omit'));
    const byDefault = storedDetail(item, { environment: 'production', store: STORE });
    const staging = storedDetail(item, { environment: 'staging', store: STORE });

    // Assess
    expect(included.customerReference).toBe(BIRTH_DATE);
    expect(omitted).not.toHaveProperty('customerReference');
    expect(byDefault).not.toHaveProperty('customerReference');
    expect(staging.customerReference).toBe(BIRTH_DATE);
  });

  it('bounds a customer reference: short, code-like, else left out', () => {
    // Prepare
    const cases = ['order-1234', 'ORD/2026/17', NAME, EMAIL, TOKEN, 'a'.repeat(65), 'x\ny', '-lead'];

    // Act
    const kept = cases.map((ref) => storedDetail(storedItem({ customerReference: ref }), options('include')));

    // Assess
    expect(kept.map((d) => d.customerReference)).toEqual([
      'order-1234',
      'ORD/2026/17',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('keeps only known section names, each with a result value of the spec', () => {
    // Act
    const sections = sectionValues({
      identity: 'APPROVED',
      [NAME]: 'APPROVED',
      faceVerify: DOCUMENT_NUMBER,
      vog: 'TECHNICAL_REJECT',
      ['__proto__']: 'APPROVED',
    });

    // Assess
    expect(sections).toEqual({ identity: 'APPROVED', faceVerify: 'UNKNOWN', vog: 'TECHNICAL_REJECT' });
  });

  it.each([
    ['DOCUMENT_EXPIRED', true],
    ['MRZ.CHECK_FAILED', true],
    ['RULE_2.CHECK_10', true],
    ['ICAO_9303', false],
    ['DOCUMENT_REPORTED_LOST_OR_STOLEN', true],
    ['document_expired', false],
    [NAME, false],
    ['JANE DOE', false],
    [BIRTH_DATE, false],
    [DOCUMENT_NUMBER, false],
    ['NL_12345', false],
    [TOKEN, false],
    [EMAIL, false],
    ['A'.repeat(65), false],
    ['_LEADING', false],
    ['TRAILING_', false],
    ['DOUBLE__SEP', false],
  ])('a message %j is a reason key: %s', (message, kept) => {
    // Act
    const { messages, dropped } = reasonKeys([message]);

    // Assess
    expect(messages).toEqual(kept ? [message] : []);
    expect(dropped).toBe(kept ? 0 : 1);
  });

  it('an item stored by an older version (any strings) still yields a valid, clean detail', () => {
    // Prepare
    const validate = eventValidators().VerificationResultStored;
    const item: ResultItem = {
      ...storedItem({}),
      result: TOKEN,
      sections: { identity: NAME, [NAME]: 'APPROVED' },
      messages: [BIRTH_DATE, 'FACE_MISMATCH'],
      product: DOCUMENT_NUMBER,
      userId: EMAIL,
      transactionId: NAME,
      summary: {
        imageCount: 1,
        fileCount: 0,
        rtwType: NAME,
        documentType: 'PASSPORT',
        issuingState: DOCUMENT_NUMBER,
        additionalDocumentResults: [BIRTH_DATE],
      },
    };

    // Act
    const detail = storedDetail(item, options('include'));

    // Assess
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
    expect(JSON.stringify(detail)).not.toMatch(/Jane|1970|NL1234567|Bearer|example\.com/);
    expect(detail).toMatchObject({
      result: 'UNKNOWN',
      sections: { identity: 'UNKNOWN' },
      messages: ['FACE_MISMATCH'],
      messagesDropped: 1,
      product: 'UNKNOWN',
      documentType: 'PASSPORT',
      additionalDocumentResults: ['UNKNOWN'],
    });
  });
});

describe('the event of a changed verdict (VerificationResultChanged)', () => {
  /** The first verdict, as the history of the second lists it. */
  const previous: ResultVersion = {
    version: 1,
    resultId: 'r-1',
    completed: '2026-08-10T12:00:00.000Z',
    completedKnown: true,
    result: 'APPROVED',
    sections: { identity: 'APPROVED' },
    storedAt: '2026-08-10T12:05:00.000Z',
  };

  /** Version 2 of `r-1`, stored with its poll record's facts. */
  function secondVersion(facts: Partial<ResultItem>): ResultItem {
    const { bucket: _bucket, resultKey: _resultKey, ...item } = storedItem({ result: 'DISAPPROVED' });
    return {
      ...item,
      messages: ['FRAUD_SUSPECTED'],
      sections: { identity: 'DISAPPROVED' },
      version: 2,
      versions: [previous],
      ...facts,
    };
  }

  it('carries the transaction, product and both completion times when each is well-formed', () => {
    // Prepare
    const validate = eventValidators().VerificationResultChanged;
    const item = secondVersion({
      transactionId: 'tx-1',
      product: 'IDV_STANDARD',
      completed: '2026-08-12T09:30:00.000Z',
      completedKnown: true,
      customerReference: 'order-1234',
      userId: 'user-7',
    });

    // Act
    const detail = changedDetail(item, previous, options('include'));

    // Assess: a consumer orders the versions by their completion and finds the transaction; no reference
    // or user, whatever the environment includes elsewhere.
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
    expect(detail).toEqual({
      transactionId: 'tx-1',
      resultId: 'r-1',
      previousResultId: 'r-1',
      version: 2,
      previousVersion: 1,
      result: 'DISAPPROVED',
      previousResult: 'APPROVED',
      sections: { identity: 'DISAPPROVED' },
      previousSections: { identity: 'APPROVED' },
      messages: ['FRAUD_SUSPECTED'],
      product: 'IDV_STANDARD',
      completed: '2026-08-12T09:30:00.000Z',
      previousCompleted: '2026-08-10T12:00:00.000Z',
      storedAt: '2026-08-11T00:00:00.000Z',
      environment: 'production',
      // An item without its own location: the store's bucket and the version's own result.json.
      storage: { table: 'results', bucket: 'data', resultKey: 'results/r-1/versions/2/result.json' },
    });
  });

  it('leaves out a transaction, product value and times it cannot vouch for', () => {
    // Prepare: planted identifiers and times; the service's `completed` of neither version is known.
    const validate = eventValidators().VerificationResultChanged;
    const item = secondVersion({
      transactionId: NAME,
      product: DOCUMENT_NUMBER,
      completed: BIRTH_DATE,
      completedKnown: true,
      customerReference: 'order-1234',
      userId: 'user-7',
      result: TOKEN,
      messages: [NAME, 'FRAUD_SUSPECTED'],
    });
    const unknownTimes = secondVersion({ completed: '2026-08-12T09:30:00.000Z', completedKnown: false });

    // Act
    const planted = changedDetail(
      item,
      { ...previous, completed: BIRTH_DATE, result: NAME },
      options('include'),
    );
    const noTimes = changedDetail(unknownTimes, { ...previous, completedKnown: false }, options('include'));

    // Assess
    expect(validate(planted), JSON.stringify(validate.errors)).toBe(true);
    expect(JSON.stringify(planted)).not.toMatch(/Jane|1970|NL1234567|Bearer/);
    expect(planted).toMatchObject({ product: 'UNKNOWN', result: 'UNKNOWN', previousResult: 'UNKNOWN' });
    for (const field of ['transactionId', 'completed', 'previousCompleted', 'customerReference', 'userId']) {
      expect(planted, field).not.toHaveProperty(field);
    }
    for (const field of ['transactionId', 'product', 'completed', 'previousCompleted']) {
      expect(noTimes, field).not.toHaveProperty(field);
    }
  });

  it('names where the item keeps its version when it says so', () => {
    // Prepare: a version stored under an earlier bucket and key.
    const item = secondVersion({ bucket: 'data-2025', resultKey: 'results/r-1/versions/2/moved.json' });

    // Act
    const detail = changedDetail(item, previous, options('omit'));

    // Assess
    expect(detail.storage).toEqual({
      table: 'results',
      bucket: 'data-2025',
      resultKey: 'results/r-1/versions/2/moved.json',
    });
  });

  it.each([
    ['the item', { resultId: `${NAME} ${BIRTH_DATE}` }, previous, /result item resultId/],
    [
      'the previous version',
      {},
      { ...previous, resultId: `${NAME} ${BIRTH_DATE}` },
      /previous version resultId/,
    ],
  ] as const)(
    'refuses to announce a change when %s breaks the resultId rule: no event',
    (_, facts, before, error) => {
      // Act / Assess
      expect(() => changedDetail(secondVersion(facts), before, options('omit'))).toThrow(error);
    },
  );
});

const STORE = { table: 'results', bucket: 'data' };

function options(mode: CustomerReferenceMode) {
  return { environment: 'production' as const, store: STORE, eventCustomerReference: mode };
}

function storedItem(document: Record<string, unknown>): ResultItem {
  return buildStoredItem({
    hints: { resultId: 'r-1', source: 'poll' },
    document: { result: 'APPROVED', ...document },
    stored: { resultKey: 'results/r-1/result.json', objects: [], documentBytes: 10 },
    bucket: 'data',
    storedAt: '2026-08-11T00:00:00.000Z',
    retentionDays: 30,
  });
}
