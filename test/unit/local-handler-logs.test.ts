import { afterEach, describe, expect, it } from 'vitest';
import { captureHandlerLogs, formatHandlerLog } from '../../local/handler-logs';

describe('formatHandlerLog', () => {
  it('turns a Powertools JSON line into one readable line with the ids and the error', () => {
    // Prepare
    const json = JSON.stringify(
      {
        level: 'WARN',
        message: 'message failed: left for redelivery',
        timestamp: '2026-11-23T21:00:00.000Z',
        service: 'idv-pipeline',
        sampling_rate: 0,
        pipelineFunction: 'fetch-result',
        environment: 'staging',
        resultId: 'r-1',
        transactionId: 't-1',
        error: { name: 'ConnectionError', message: 'the service did not answer', stack: 'at …' },
      },
      null,
      4,
    );
    // Act
    const line = formatHandlerLog(json);
    // Assess
    expect(line).toBe(
      '⚠ warn  fetch-result  message failed: left for redelivery  resultId=r-1 transactionId=t-1 error=ConnectionError: the service did not answer',
    );
    expect(line).not.toContain('\n');
  });

  it.each([
    ['plain text', 'hello'],
    ['JSON that is not a log entry', '{"a":1}'],
    ['a JSON array', '[1,2]'],
  ])('leaves %s alone', (_label, text) => {
    expect(formatHandlerLog(text)).toBeUndefined();
  });

  it('shows nested objects only as the error summary, never their content', () => {
    const line = formatHandlerLog(
      JSON.stringify({ level: 'ERROR', message: 'x', details: { name: 'P. Person' } }),
    );
    expect(line).toBe('✖ error x');
  });
});

describe('captureHandlerLogs', () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it('routes console output through the writer and restores the console', () => {
    const lines: string[] = [];
    const before = console.warn;
    restore = captureHandlerLogs((line) => lines.push(line));
    console.warn(JSON.stringify({ level: 'WARN', message: 'poll found nothing', count: 0 }));
    console.info('plain');
    restore();
    restore = undefined;
    expect(lines).toEqual(['⚠ warn  poll found nothing  count=0', 'plain']);
    expect(console.warn).toBe(before);
  });
});
