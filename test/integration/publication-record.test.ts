/**
 * The publication record's rules against dynalite (shared/store/publication.ts): a claim holds off other
 * deliveries until it expires, a status is marked once, STORED takes over from UNAVAILABLE and never the
 * reverse, and claims and marks never write the result item (so they stay one small write each).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unfinishedErasures } from '../../shared/erasure/erase-result';
import { type ErasureRecord, ErasureRecords, erasureKey } from '../../shared/store/erasure-record';
import { dynamoItemSize } from '../../shared/store/item';
import { publicationKey } from '../../shared/store/publication';
import { type LocalStore, startLocalStore } from '../support/local-store';

let local: LocalStore;

beforeAll(async () => {
  local = await startLocalStore('idv-pubrec');
}, 60_000);

afterAll(async () => {
  await local?.close();
});

const NOW = 1_800_000_000_000;
const claim = (token: string, expiresAt = NOW + 60_000) => ({ token, expiresAt });

describe('publication record', () => {
  it('a claim holds off another token until it expires; its own token takes it over at once', async () => {
    // Act
    const first = await local.publications.claim('p-1', 'STORED', claim('a'), NOW, 1_900_000_000);
    const other = await local.publications.claim('p-1', 'STORED', claim('b'), NOW + 1);
    const own = await local.publications.claim('p-1', 'STORED', claim('a'), NOW + 2);
    const afterExpiry = await local.publications.claim(
      'p-1',
      'STORED',
      claim('b', NOW + 200_000),
      NOW + 60_001,
    );

    // Assess
    expect([first, other, own, afterExpiry].map((r) => r.claimed)).toEqual([true, false, true, true]);
    // A refused claim comes with the record that refused it (ReturnValuesOnConditionCheckFailure, or read).
    expect(other).toMatchObject({ claimed: false, record: { status: 'STORED', claim: 'a' } });
    expect(await local.publications.get('p-1')).toMatchObject({
      status: 'STORED',
      claim: 'b',
      expiresAt: 1_900_000_000,
    });
  });

  it('a release gives up only its own token`s claim, never a published record', async () => {
    // Prepare
    await local.publications.claim('p-r', 'STORED', claim('a'), NOW, 1_900_000_000);

    // Act
    await local.publications.release('p-r', 'b');
    const afterOther = await local.publications.get('p-r');
    await local.publications.release('p-r', 'a');
    const afterOwn = await local.publications.get('p-r');
    const next = await local.publications.claim('p-r', 'STORED', claim('b'), NOW + 1);
    await local.publications.mark('p-r', 'STORED', '2027-01-01T00:00:00.000Z');
    await local.publications.release('p-r', 'b');
    await local.publications.release('p-none', 'a');

    // Assess: another token's release changes nothing; the own one frees the record for the next claim at
    // once; a published record and an absent one are left as they are.
    expect(afterOther).toMatchObject({ claim: 'a', claimExpiresAt: NOW + 60_000 });
    expect(afterOwn).toEqual({ resultId: publicationKey('p-r'), status: 'STORED', expiresAt: 1_900_000_000 });
    expect(next.claimed).toBe(true);
    expect(await local.publications.get('p-r')).toMatchObject({ publishedAt: '2027-01-01T00:00:00.000Z' });
    expect(await local.publications.get('p-none')).toBeUndefined();
  });

  it('marks a status once, drops the claim, and refuses claims after the mark', async () => {
    // Prepare
    await local.publications.claim('p-2', 'STORED', claim('a'), NOW);

    // Act
    await local.publications.mark('p-2', 'STORED', '2027-01-01T00:00:00.000Z');
    await local.publications.mark('p-2', 'STORED', '2027-02-02T00:00:00.000Z');
    const late = await local.publications.claim('p-2', 'STORED', claim('b', NOW + 500_000), NOW + 400_000);

    // Assess
    const record = await local.publications.get('p-2');
    expect(record).toMatchObject({ status: 'STORED', publishedAt: '2027-01-01T00:00:00.000Z' });
    expect(record).not.toHaveProperty('claim');
    expect(record).not.toHaveProperty('claimExpiresAt');
    expect(late).toEqual({
      claimed: false,
      record: expect.objectContaining({ status: 'STORED', publishedAt: '2027-01-01T00:00:00.000Z' }),
    });
  });

  it('STORED takes over a published UNAVAILABLE record; UNAVAILABLE never takes over STORED', async () => {
    // Prepare: the service said 404 and that was announced.
    await local.publications.claim('p-3', 'UNAVAILABLE', claim('a'), NOW);
    await local.publications.mark('p-3', 'UNAVAILABLE', '2027-01-01T00:00:00.000Z');

    // Act: the result appears after all; a 404 delivery tries to announce it gone while the STORED claim
    // holds, and again after the STORED event was published.
    const stored = await local.publications.claim('p-3', 'STORED', claim('b'), NOW + 1);
    const goneWhileHeld = await local.publications.claim('p-3', 'UNAVAILABLE', claim('c'), NOW + 2);
    await local.publications.mark('p-3', 'UNAVAILABLE', '2027-01-03T00:00:00.000Z');
    const beforeMark = await local.publications.get('p-3');
    await local.publications.mark('p-3', 'STORED', '2027-01-02T00:00:00.000Z');
    await local.publications.mark('p-3', 'UNAVAILABLE', '2027-01-04T00:00:00.000Z');
    const goneAfterPublish = await local.publications.claim(
      'p-3',
      'UNAVAILABLE',
      claim('c', NOW + 500_000),
      NOW + 400_000,
    );

    // Assess
    expect([stored.claimed, goneWhileHeld.claimed, goneAfterPublish.claimed]).toEqual([true, false, false]);
    expect(beforeMark).toMatchObject({ status: 'UNAVAILABLE', publishedAt: '2027-01-03T00:00:00.000Z' });
    expect(await local.publications.get('p-3')).toMatchObject({
      status: 'STORED',
      publishedAt: '2027-01-02T00:00:00.000Z',
    });
  });

  it('a STORED record no delivery holds and nothing was published for is free for UNAVAILABLE and STORED', async () => {
    // Prepare: attempts that claimed STORED and failed before any item existed, one released (p-5), one
    // expired (p-6); and the same for a fetch that comes after the release (p-7).
    await local.publications.claim('p-5', 'STORED', claim('a'), NOW, 1_900_000_000);
    await local.publications.release('p-5', 'a');
    await local.publications.claim('p-6', 'STORED', claim('a'), NOW);
    await local.publications.claim('p-7', 'STORED', claim('a'), NOW);
    await local.publications.release('p-7', 'a');

    // Act: a 404 on the redrive (another message, token b), and a fetch that stores.
    const released = await local.publications.claim('p-5', 'UNAVAILABLE', claim('b'), NOW + 1);
    const heldStill = await local.publications.claim('p-6', 'UNAVAILABLE', claim('b'), NOW + 60_000);
    const expired = await local.publications.claim(
      'p-6',
      'UNAVAILABLE',
      claim('b', NOW + 200_000),
      NOW + 60_001,
    );
    const storedAgain = await local.publications.claim('p-7', 'STORED', claim('b'), NOW + 1);

    // Assess: refused while the claim held (claimExpiresAt = now is still held), taken once it was given up.
    expect([released.claimed, heldStill.claimed, expired.claimed, storedAgain.claimed]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    expect(await local.publications.get('p-5')).toMatchObject({
      status: 'UNAVAILABLE',
      claim: 'b',
      expiresAt: 1_900_000_000,
    });
    expect(await local.publications.get('p-6')).toMatchObject({ status: 'UNAVAILABLE', claim: 'b' });
  });

  it('an UNAVAILABLE claim is refused by a published STORED record, however old', async () => {
    // Prepare
    await local.publications.claim('p-8', 'STORED', claim('a'), NOW);
    await local.publications.mark('p-8', 'STORED', '2027-01-01T00:00:00.000Z');

    // Act
    const gone = await local.publications.claim('p-8', 'UNAVAILABLE', claim('a'), NOW + 10_000_000);

    // Assess: even its own token: the STORED event is out.
    expect(gone).toMatchObject({
      claimed: false,
      record: { status: 'STORED', publishedAt: '2027-01-01T00:00:00.000Z' },
    });
  });

  it('the store reads eventPublishedAt from the record of the item’s own status, and never writes the item', async () => {
    // Prepare: an UNAVAILABLE item whose event was published, replaced by a STORED item.
    const base = {
      resultId: 'p-4',
      completed: '2027-01-01T00:00:00.000Z',
      completedKnown: true,
      completedDay: '2027-01-01',
      storedAt: '2027-01-01T00:00:00.000Z',
      expiresAt: 1_900_000_000,
    };
    await local.store.putUnavailableItem({ ...base, status: 'UNAVAILABLE', reason: 'NOT_FOUND' });
    await local.publications.claim('p-4', 'UNAVAILABLE', claim('a'), NOW, base.expiresAt);
    await local.publications.mark('p-4', 'UNAVAILABLE', '2027-01-01T00:00:01.000Z', base.expiresAt);
    const unavailable = await local.store.getItem('p-4');
    const document = { result: 'APPROVED', note: 'x'.repeat(20_000) };
    await local.store.putStoredItem({ ...base, status: 'STORED', result: 'APPROVED', document });

    // Act
    const storedBefore = await local.store.getItem('p-4');
    await local.publications.claim('p-4', 'STORED', claim('b'), NOW + 1, base.expiresAt);
    await local.publications.mark('p-4', 'STORED', '2027-01-02T00:00:00.000Z', base.expiresAt);
    const storedAfter = await local.store.getItem('p-4');

    // Assess
    expect(unavailable?.eventPublishedAt).toBe('2027-01-01T00:00:01.000Z');
    expect(storedBefore?.eventPublishedAt).toBeUndefined();
    expect(storedAfter?.eventPublishedAt).toBe('2027-01-02T00:00:00.000Z');
    const { Item: raw } = await local.dynamo.send(
      new GetCommand({ TableName: local.resources.tableName, Key: { resultId: 'p-4' } }),
    );
    expect(raw).not.toHaveProperty('eventPublishedAt');
    expect(raw?.document).toEqual(document);
    const { Item: record } = await local.dynamo.send(
      new GetCommand({ TableName: local.resources.tableName, Key: { resultId: publicationKey('p-4') } }),
    );
    // One write unit per claim or mark (≤ 1 KB), however large the item (here over 20 KB).
    expect(dynamoItemSize(record!)).toBeLessThan(1024);
    expect(dynamoItemSize(raw!)).toBeGreaterThan(20_000);
  });
});

describe('a later version of a published result (docs/changed-verdicts.md)', () => {
  it('is claimed beside the published first version, once, and marked only forward', async () => {
    // Prepare: version 1 stored and announced.
    await local.publications.claim('v-1', 'STORED', claim('a'), NOW, 1_900_000_000);
    await local.publications.mark('v-1', 'STORED', '2027-01-01T00:00:00.000Z', 1_900_000_000);

    // Act: the service changed its verdict; two deliveries of version 2, the first claims and marks; a
    // redelivery after that; the late mark of a version-1 delivery whose claim expired; then version 3.
    const second = await local.publications.claim('v-1', 'STORED', claim('b'), NOW + 1, 1_950_000_000, 2);
    const twin = await local.publications.claim('v-1', 'STORED', claim('c'), NOW + 2, undefined, 2);
    const whileClaimed = await local.publications.get('v-1');
    await local.publications.mark('v-1', 'STORED', '2027-01-02T00:00:00.000Z', 1_950_000_000, 2);
    const redelivered = await local.publications.claim('v-1', 'STORED', claim('c'), NOW + 3, undefined, 2);
    await local.publications.mark('v-1', 'STORED', '2027-01-03T00:00:00.000Z');
    await local.publications.mark('v-1', 'STORED', '2027-01-04T00:00:00.000Z', undefined, 2);
    const afterLateMarks = await local.publications.get('v-1');
    const third = await local.publications.claim('v-1', 'STORED', claim('d'), NOW + 4, undefined, 3);

    // Assess: the twin is held off, the redelivery is a duplicate, the late marks change nothing.
    expect([second.claimed, twin.claimed, redelivered.claimed, third.claimed]).toEqual([
      true,
      false,
      false,
      true,
    ]);
    // While version 2 is claimed, version 1's publication stays readable.
    expect(whileClaimed).toEqual({
      resultId: publicationKey('v-1'),
      status: 'STORED',
      publishedAt: '2027-01-01T00:00:00.000Z',
      claim: 'b',
      claimExpiresAt: NOW + 60_000,
      claimVersion: 2,
      expiresAt: 1_950_000_000,
    });
    expect(twin).toMatchObject({ claimed: false, record: { claim: 'b', claimVersion: 2 } });
    expect(redelivered).toMatchObject({ claimed: false, record: { version: 2 } });
    expect(afterLateMarks).toEqual({
      resultId: publicationKey('v-1'),
      status: 'STORED',
      publishedAt: '2027-01-02T00:00:00.000Z',
      version: 2,
      expiresAt: 1_950_000_000,
    });
  });

  it('is refused while the first version is claimed and not yet published, and for an UNAVAILABLE record', async () => {
    // Prepare: version 1 of v-2 claimed (not published); v-3 announced as gone.
    await local.publications.claim('v-2', 'STORED', claim('a'), NOW);
    await local.publications.claim('v-3', 'UNAVAILABLE', claim('a'), NOW);
    await local.publications.mark('v-3', 'UNAVAILABLE', '2027-01-01T00:00:00.000Z');

    // Act
    const beforeFirst = await local.publications.claim('v-2', 'STORED', claim('b'), NOW + 1, undefined, 2);
    const afterExpiry = await local.publications.claim(
      'v-2',
      'STORED',
      claim('b', NOW + 200_000),
      NOW + 60_001,
      undefined,
      2,
    );
    const overGone = await local.publications.claim('v-3', 'STORED', claim('b'), NOW + 1, undefined, 2);

    // Assess: a change is announced only after the verdict it changes.
    expect([beforeFirst.claimed, afterExpiry.claimed, overGone.claimed]).toEqual([false, false, false]);
    expect(await local.publications.get('v-2')).toMatchObject({ claim: 'a' });
  });

  it('a claim that names version 1 is the first version`s: refused once that is published', async () => {
    // Prepare
    await local.publications.claim('v-5', 'STORED', claim('a'), NOW);
    await local.publications.mark('v-5', 'STORED', '2027-01-01T00:00:00.000Z');

    // Act: a redelivery of the first verdict that names its version.
    const again = await local.publications.claim('v-5', 'STORED', claim('b'), NOW + 1, undefined, 1);

    // Assess: a duplicate, not a change to announce.
    expect(again).toMatchObject({ claimed: false, record: { publishedAt: '2027-01-01T00:00:00.000Z' } });
  });

  it('the store reads version 2 as announced only once its own mark is written', async () => {
    // Prepare: version 2 of v-6 stored; the record says version 1 is out and version 2 is claimed.
    const item = {
      resultId: 'v-6',
      status: 'STORED' as const,
      storedAt: '2027-01-02T00:00:00.000Z',
      expiresAt: 1_900_000_000,
      version: 2,
    };
    await local.dynamo.send(new PutCommand({ TableName: local.resources.tableName, Item: item }));
    await local.publications.claim('v-6', 'STORED', claim('a'), NOW);
    await local.publications.mark('v-6', 'STORED', '2027-01-01T00:00:00.000Z');
    await local.publications.claim('v-6', 'STORED', claim('b'), NOW + 1, undefined, 2);

    // Act
    const beforeMark = await local.store.readState('v-6');
    await local.publications.mark('v-6', 'STORED', '2027-01-02T00:00:01.000Z', undefined, 2);
    const afterMark = await local.store.readState('v-6');

    // Assess: before its mark, a redelivery must not take version 2 for announced (it would be lost).
    expect(beforeMark.item).toEqual(item);
    expect(afterMark.item).toEqual({ ...item, eventPublishedAt: '2027-01-02T00:00:01.000Z' });
  });

  it('takes a result stored before publication records existed, and its record once released', async () => {
    // Act: no record at all (the item's own eventPublishedAt said version 1 is out).
    const legacy = await local.publications.claim('v-4', 'STORED', claim('a'), NOW, undefined, 2);
    const held = await local.publications.claim('v-4', 'STORED', claim('b'), NOW + 1, undefined, 2);
    await local.publications.release('v-4', 'a');
    const released = await local.publications.get('v-4');
    const again = await local.publications.claim('v-4', 'STORED', claim('b'), NOW + 2, undefined, 2);

    // Assess: the record such claims write has no status; released, the next delivery claims at once.
    expect([legacy.claimed, held.claimed, again.claimed]).toEqual([true, false, true]);
    expect(released).toEqual({ resultId: publicationKey('v-4') });
    expect(await local.publications.get('v-4')).toMatchObject({ claim: 'b', claimVersion: 2 });
  });
});

describe('the erasure`s fence on a publication record', () => {
  const ERASED_AT = '2027-02-01T00:00:00.000Z';

  it('refuses every claim and mark of a fenced record but a refetch`s, which lifts the fence', async () => {
    // Prepare: a result announced, then erased.
    await local.publications.claim('f-1', 'STORED', claim('a'), NOW, 1_900_000_000);
    await local.publications.mark('f-1', 'STORED', '2027-01-01T00:00:00.000Z', 1_900_000_000);
    const fenced = await local.publications.fence('f-1', ERASED_AT, 1_910_000_000, { overBefore: NOW });

    // Act: late deliveries of the erased result (a redrive, a changed verdict, a 404, a late mark).
    const stored = await local.publications.claim('f-1', 'STORED', claim('b'), NOW + 1);
    const changed = await local.publications.claim('f-1', 'STORED', claim('b'), NOW + 1, undefined, 2);
    const gone = await local.publications.claim('f-1', 'UNAVAILABLE', claim('b'), NOW + 1);
    await local.publications.mark('f-1', 'STORED', '2027-02-02T00:00:00.000Z');
    await local.publications.mark('f-1', 'STORED', '2027-02-02T00:00:00.000Z', undefined, 2);
    const afterLate = await local.publications.get('f-1');
    const refetch = await local.publications.claim(
      'f-1',
      'STORED',
      { ...claim('r'), reopensErasure: true },
      NOW + 2,
    );

    // Assess
    expect(fenced).toEqual({ fenced: true, replacedRecord: true });
    expect([stored.claimed, changed.claimed, gone.claimed, refetch.claimed]).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(afterLate).toEqual({
      resultId: publicationKey('f-1'),
      erasedAt: ERASED_AT,
      expiresAt: 1_910_000_000,
    });
    expect(await local.publications.get('f-1')).toEqual({
      resultId: publicationKey('f-1'),
      status: 'STORED',
      claim: 'r',
      claimExpiresAt: NOW + 60_000,
      expiresAt: 1_910_000_000,
    });
  });

  it('a refetch does not take a record a delivery holds or has published', async () => {
    // Prepare
    await local.publications.claim('f-2', 'STORED', claim('a'), NOW);
    await local.publications.claim('f-3', 'STORED', claim('a'), NOW);
    await local.publications.mark('f-3', 'STORED', '2027-01-01T00:00:00.000Z');
    const refetch = { ...claim('r'), reopensErasure: true };

    // Act
    const held = await local.publications.claim('f-2', 'STORED', refetch, NOW + 1);
    const published = await local.publications.claim('f-3', 'STORED', refetch, NOW + 1);

    // Assess
    expect([held.claimed, published.claimed]).toEqual([false, false]);
  });

  it('waits for a live claim unless it is over or outlived the claim`s life; a bare record replaces nothing', async () => {
    // Prepare: a delivery holds f-4 until NOW + 60 s; f-5 has no record.
    await local.publications.claim('f-4', 'STORED', claim('a'), NOW, 1_900_000_000);

    // Act
    const live = await local.publications.fence('f-4', ERASED_AT, 1_910_000_000, { overBefore: NOW });
    const otherSeen = await local.publications.fence('f-4', ERASED_AT, 1_910_000_000, {
      overBefore: NOW,
      outlived: { token: 'a', until: NOW + 1 },
    });
    const outlived = await local.publications.fence('f-4', ERASED_AT, 1_910_000_000, {
      overBefore: NOW,
      outlived: { token: 'a', until: NOW + 60_000 },
    });
    const expired = await local.publications.fence('f-5', ERASED_AT, 1_910_000_000, { overBefore: NOW });
    await local.publications.claim('f-6', 'STORED', claim('a'), NOW);
    const over = await local.publications.fence('f-6', ERASED_AT, 1_910_000_000, {
      overBefore: NOW + 60_001,
    });

    // Assess: the erasure learns who holds the record, and whether an announced result's record went.
    expect(live).toEqual({
      fenced: false,
      holder: expect.objectContaining({ claim: 'a', status: 'STORED' }),
    });
    expect(otherSeen.fenced).toBe(false);
    expect(outlived).toEqual({ fenced: true, replacedRecord: true });
    expect(expired).toEqual({ fenced: true, replacedRecord: false });
    expect(over).toEqual({ fenced: true, replacedRecord: true });
    expect(await local.publications.get('f-4')).toEqual({
      resultId: publicationKey('f-4'),
      erasedAt: ERASED_AT,
      expiresAt: 1_910_000_000,
    });
  });
});

describe('what fetch-result reads before it asks the service (ResultStore.readState)', () => {
  it('reads the item with its publication and the erasure record in one request, strongly consistent', async () => {
    // Prepare: one result stored and announced, one erased, one never seen.
    const item = {
      resultId: 'rs-1',
      status: 'STORED' as const,
      storedAt: '2027-01-01T00:00:00.000Z',
      expiresAt: 1_900_000_000,
    };
    await local.dynamo.send(new PutCommand({ TableName: local.resources.tableName, Item: item }));
    await local.publications.claim('rs-1', 'STORED', claim('a'), NOW);
    await local.publications.mark('rs-1', 'STORED', '2027-01-01T00:00:01.000Z');
    const record: ErasureRecord = {
      resultId: erasureKey('rs-2'),
      erasedResultId: 'rs-2',
      state: 'ERASED',
      requestedAt: '2027-01-02T00:00:00.000Z',
      principal: 'operator',
      selectedBy: 'result-id',
      expiresAt: 1_900_000_000,
    };
    await new ErasureRecords(local.dynamo, local.resources.tableName).put(record);

    // Act
    const stored = await local.store.readState('rs-1');
    const erased = await local.store.readState('rs-2');
    const refetch = await local.store.readState('rs-2', { erasure: false });
    const unknown = await local.store.readState('rs-3');

    // Assess
    expect(stored).toEqual({
      item: { ...item, eventPublishedAt: '2027-01-01T00:00:01.000Z' },
      erased: false,
    });
    expect(stored).toEqual({ item: await local.store.getItem('rs-1'), erased: false });
    expect(erased).toEqual({ item: undefined, erased: true });
    expect(await new ErasureRecords(local.dynamo, local.resources.tableName).get('rs-2')).toEqual(record);
    expect(refetch).toEqual({ item: undefined, erased: false });
    expect(unknown).toEqual({ item: undefined, erased: false });
  });
});

describe('the erasures a run left unfinished (unfinishedErasures, a Scan the local run makes)', () => {
  it('finds the records left ERASING, with principal and selector; not finished ones, results or fences', async () => {
    // Prepare: an erasure killed half-way, a finished one, a result item and a fenced publication record.
    const records = new ErasureRecords(local.dynamo, local.resources.tableName);
    const erasure = (resultId: string, state: ErasureRecord['state']): ErasureRecord => ({
      resultId: erasureKey(resultId),
      erasedResultId: resultId,
      state,
      requestedAt: '2027-01-03T00:00:00.000Z',
      principal: `operator-${resultId}`,
      selectedBy: 'customer-reference',
      expiresAt: 1_900_000_000,
    });
    await records.put(erasure('ue-1', 'ERASING'));
    await records.put(erasure('ue-2', 'ERASED'));
    await local.dynamo.send(
      new PutCommand({
        TableName: local.resources.tableName,
        Item: { resultId: 'ue-3', status: 'STORED', state: 'ERASING', expiresAt: 1_900_000_000 },
      }),
    );
    await local.dynamo.send(
      new PutCommand({
        TableName: local.resources.tableName,
        Item: {
          resultId: publicationKey('ue-2'),
          erasedAt: '2027-01-03T00:00:01.000Z',
          expiresAt: 1_900_000_000,
        },
      }),
    );

    // Act: the Scan as DynamoDB evaluates it (its names and values resolved by the emulator).
    const unfinished = await unfinishedErasures(local.dynamo, local.resources.tableName);

    // Assess: the next run finishes ue-1, as its operator and selector; nothing else is picked up.
    const ids = unfinished.map((found) => found.resultId);
    expect(unfinished).toContainEqual({
      resultId: 'ue-1',
      audit: { principal: 'operator-ue-1', selectedBy: 'customer-reference' },
    });
    expect(ids.filter((id) => id.startsWith('ue-'))).toEqual(['ue-1']);
  });
});
