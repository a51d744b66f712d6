import { describe, expect, it } from 'vitest';
import { withCorrelation } from '../../shared/logger';
import { type FetchResultDeps, processQueueRecord } from '../../shared/pipeline/fetch-result';
import {
  FakePublications,
  FakePublisher,
  FakeSource,
  FakeStore,
  memoryLogger,
} from '../support/pipeline-fakes';

/** A promise the test resolves when it wants the awaiting record to go on. */
function gate(): { open: () => void; wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, wait };
}

const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('per-record correlation ids', () => {
  it('two records running at once each log under their own ids only, a crash included', async () => {
    // Prepare
    const { logger, lines } = memoryLogger();
    const aStarted = gate();
    const bFailsNow = gate();
    const aEndsNow = gate();
    const record = (id: string, body: () => Promise<void>) =>
      withCorrelation(logger, { resultId: `r-${id}`, transactionId: `t-${id}` }, async () => {
        logger.info(`${id}: start`);
        try {
          await body();
          logger.info(`${id}: done`);
        } catch {
          logger.error(`${id}: crashed`);
          throw new Error('crashed');
        }
      });

    // Act: A starts, B starts, B crashes while A waits, then A ends.
    const a = record('a', async () => {
      aStarted.open();
      await aEndsNow.wait;
      logger.info('a: after the wait');
    });
    await aStarted.wait;
    const b = record('b', async () => {
      await bFailsNow.wait;
      throw new Error('boom');
    });
    bFailsNow.open();
    await expect(b).rejects.toThrow('crashed');
    aEndsNow.open();
    await a;
    logger.info('between records');

    // Assess
    const parsed = parse(lines);
    expect(parsed.map((l) => [l.message, l.resultId, l.transactionId])).toEqual([
      ['a: start', 'r-a', 't-a'],
      ['b: start', 'r-b', 't-b'],
      ['b: crashed', 'r-b', 't-b'],
      ['a: after the wait', 'r-a', 't-a'],
      ['a: done', 'r-a', 't-a'],
      ['between records', undefined, undefined],
    ]);
  });

  it('logs only ids that follow the resultId rule', async () => {
    // Prepare
    const { logger, lines } = memoryLogger();

    // Act
    await withCorrelation(logger, { resultId: 'r-1', transactionId: 'Jane Doe 1970-01-01' }, async () => {
      logger.info('line');
    });

    // Assess
    expect(parse(lines)[0]).toMatchObject({ message: 'line', resultId: 'r-1' });
    expect(lines.join('\n')).not.toContain('Jane');
  });

  it('fetch-result: a crash of one result is logged under its own id while another is stored', async () => {
    // Prepare: r-bad's fetch fails while r-good's fetch is still waiting.
    const { logger, lines } = memoryLogger();
    const badFails = gate();
    const goodAnswers = gate();
    const source = new FakeSource(new Map([['r-good', { transactionId: 't-good', result: 'APPROVED' }]]));
    const answer = source.getResultBody.bind(source);
    source.getResultBody = async (resultId: string) => {
      if (resultId === 'r-bad') {
        await badFails.wait;
        throw new Error('connection reset');
      }
      await goodAnswers.wait;
      return answer(resultId);
    };
    const store = new FakeStore();
    const deps: FetchResultDeps = {
      source,
      store,
      publications: new FakePublications(store),
      publisher: new FakePublisher(),
      environment: 'staging',
      retentionDays: 30,
      logger,
    };
    const message = (resultId: string, transactionId: string) =>
      JSON.stringify({ resultId, source: 'poll', transactionId });

    // Act: the failing record starts first, the stored one last.
    const bad = processQueueRecord(message('r-bad', 't-bad'), deps);
    const good = processQueueRecord(message('r-good', 't-good'), deps);
    await new Promise((resolve) => setImmediate(resolve));
    badFails.open();
    await expect(bad).rejects.toThrow('connection reset');
    goodAnswers.open();
    await expect(good).resolves.toBe('stored');

    // Assess
    const parsed = parse(lines);
    const failed = parsed.filter((l) => l.level === 'ERROR');
    const stored = parsed.filter((l) => l.message === 'result stored');
    expect(failed.map((l) => [l.resultId, l.transactionId])).toEqual([['r-bad', 't-bad']]);
    expect(stored.map((l) => [l.resultId, l.transactionId])).toEqual([['r-good', 't-good']]);
  });
});
