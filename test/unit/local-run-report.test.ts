import { describe, expect, it } from 'vitest';
import type { LocalEvent } from '../../local/fake-eventbridge';
import { dataDirFlag, EventTally, formatEventLine } from '../../local/run-report';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';

function event(detailType: string, detail: Record<string, unknown>): LocalEvent {
  return {
    id: 'e',
    time: '2025-01-01T00:00:00.000Z',
    source: EVENT_SOURCE,
    'detail-type': detailType,
    detail,
    eventBusName: 'bus',
    resources: [],
  };
}

describe('formatEventLine', () => {
  it('shows identifiers, product and result of a stored result, and nothing else', () => {
    // Prepare
    const stored = event(DETAIL_TYPES.resultStored, {
      resultId: 'r-1',
      transactionId: 'tx-1',
      product: 'IDV_STANDARD',
      result: 'APPROVED',
      customerReference: 'customer-ref-secretish',
      storage: { bucket: 'b' },
    });

    // Act
    const line = formatEventLine(stored);

    // Assess
    expect(line).toBe('✔ stored       r-1  IDV_STANDARD  APPROVED  tx=tx-1');
    expect(line).not.toContain('customer-ref');
  });

  it('marks a replayed event, by detail.replay or by replay-name', () => {
    // Prepare
    const detail = { resultId: 'r-1', transactionId: 'tx-1', product: 'IDV_STANDARD', result: 'APPROVED' };
    const ours = event(DETAIL_TYPES.resultStored, { ...detail, replay: 'idv-replay-20260810T120000Z' });
    const archive = { ...event(DETAIL_TYPES.resultStored, detail), 'replay-name': 'nightly' } as LocalEvent;
    const odd = event(DETAIL_TYPES.resultStored, { ...detail, replay: 'has spaces\u001b[31m' });

    // Act
    const lines = [ours, archive, odd].map(formatEventLine);

    // Assess
    expect(lines[0]).toBe(
      '✔ stored       r-1  IDV_STANDARD  APPROVED  tx=tx-1  ↻ replayed (idv-replay-20260810T120000Z)',
    );
    expect(lines[1]).toBe('✔ stored       r-1  IDV_STANDARD  APPROVED  tx=tx-1  ↻ replayed (nightly)');
    expect(lines[2]).toBe('✔ stored       r-1  IDV_STANDARD  APPROVED  tx=tx-1  ↻ replayed');
  });

  it('marks unavailable results (with their reason) and uploads', () => {
    // Act
    const unavailable = formatEventLine(
      event(DETAIL_TYPES.resultUnavailable, { resultId: 'r-2', reason: 'NOT_FOUND', transactionId: 'tx-2' }),
    );
    const uploaded = formatEventLine(event(DETAIL_TYPES.documentsUploaded, { transactionId: 'tx-3' }));

    // Assess
    expect(unavailable).toBe('✖ unavailable  r-2  -  NOT_FOUND  tx=tx-2');
    expect(uploaded).toBe('⇪ uploaded     tx=tx-3');
  });

  it('prints - for a missing product or result, so every column stays in its place', () => {
    // Prepare: a VOG result has no product; an unavailable one found by webhook knows nothing else.
    const vog = event(DETAIL_TYPES.resultStored, {
      resultId: 'r-4',
      result: 'APPROVED',
      transactionId: 'tx-4',
    });
    const bare = event(DETAIL_TYPES.resultUnavailable, { resultId: 'r-5' });

    // Act
    const columns = [formatEventLine(vog), formatEventLine(bare)].map((line) => line.split('  ').length);

    // Assess
    expect(formatEventLine(vog)).toBe('✔ stored       r-4  -  APPROVED  tx=tx-4');
    expect(formatEventLine(bare)).toBe('✖ unavailable  r-5  -  -');
    expect(columns[0]).toBe(
      formatEventLine(
        event(DETAIL_TYPES.resultStored, {
          resultId: 'r-1',
          product: 'IDV_STANDARD',
          result: 'APPROVED',
          transactionId: 'tx-1',
        }),
      ).split('  ').length,
    );
  });
});

describe('dataDirFlag (the printed idv --local hints)', () => {
  it('adds nothing for the default .local, and the absolute directory otherwise', () => {
    // Assess
    expect(dataDirFlag('.local', '/repo')).toBe('');
    expect(dataDirFlag('/repo/.local', '/repo')).toBe('');
    expect(dataDirFlag('/tmp/x', '/repo')).toBe(' --data-dir /tmp/x');
    expect(dataDirFlag('runs/two', '/repo')).toBe(' --data-dir /repo/runs/two');
    expect(dataDirFlag('/tmp/my runs', '/repo')).toBe(" --data-dir '/tmp/my runs'");
  });
});

describe('EventTally', () => {
  it('counts stored and unavailable results once per resultId and every event', () => {
    // Prepare
    const tally = new EventTally();

    // Act
    tally.add(event(DETAIL_TYPES.resultStored, { resultId: 'r-1', transactionId: 'tx-1' }));
    tally.add(event(DETAIL_TYPES.resultStored, { resultId: 'r-1', transactionId: 'tx-1' }));
    tally.add(event(DETAIL_TYPES.resultUnavailable, { resultId: 'r-2' }));
    tally.add(event(DETAIL_TYPES.documentsUploaded, { transactionId: 'tx-3' }));

    // Assess
    expect(tally.counts).toEqual({ stored: 1, unavailable: 1, uploads: 1, events: 4 });
    expect(tally.hasStoredTransaction('tx-1')).toBe(true);
    expect(tally.hasStoredTransaction('tx-3')).toBe(false);
  });
});
