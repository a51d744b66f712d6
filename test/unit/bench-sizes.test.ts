import { describe, expect, it } from 'vitest';
import { fetchOptionsFromValues } from '../../bench/fetch-result';
import { HUGE_PROFILE, SIZE_PROFILES } from '../../bench/sizes';
import { FETCH_FLAGS, parseBenchArgs } from '../../bench/support/args';
import { costPerThousand } from '../../bench/support/prices';
import { RUN_FLAGS, runOptionsFromValues } from '../../bench/support/run-args';

const fetchArgs = (...argv: string[]) => parseBenchArgs(argv, FETCH_FLAGS, fetchOptionsFromValues);

describe('size bench command line', () => {
  it('runs every size profile by default and the 1 GiB run only with --huge', () => {
    // Act
    const byDefault = parseBenchArgs([], RUN_FLAGS, runOptionsFromValues);
    const huge = fetchArgs('--huge');

    // Assess
    expect(byDefault.kind === 'run' && byDefault.options.fetch.sizes?.map((p) => p.name)).toEqual([
      '1mb',
      '10mb',
      '50mb',
      '200mb',
      'many',
    ]);
    expect(byDefault.kind === 'run' && byDefault.options.fetch.huge).toBe(false);
    expect(huge.kind === 'run' && huge.options.huge).toBe(true);
    expect(HUGE_PROFILE.memoryLimitMb).toBe(256);
  });

  it('picks size profiles by name, or none', () => {
    // Act
    const some = fetchArgs('--sizes', '200mb,1mb');
    const none = fetchArgs('--sizes', 'none');

    // Assess: in the bench's order, whatever the order given
    expect(some.kind === 'run' && some.options.sizes?.map((p) => p.name)).toEqual(['1mb', '200mb']);
    expect(none.kind === 'run' && none.options.sizes).toEqual([]);
  });

  it.each([
    [['--sizes', '1gb'], '--sizes takes some of 1mb,10mb,50mb,200mb,many or none (unknown: 1gb)'],
    [['--huge=yes'], '--huge takes no value'],
    [['--sizes'], '--sizes needs a value'],
  ])('refuses %j: %s', (argv, message) => {
    // Act
    const args = fetchArgs(...argv);

    // Assess
    expect(args).toEqual({ kind: 'usage', message });
  });

  it('sizes bodies of about 1, 10, 50 and 200 MiB (base64 is 4/3 of the decoded bytes)', () => {
    // Act
    const bodyMiB = SIZE_PROFILES.map(
      (p) => Math.round(((p.images * p.imageBytes * 4) / 3 / 2 ** 20) * 10) / 10,
    );

    // Assess
    expect(bodyMiB.slice(0, 4)).toEqual([1, 10, 50, 200]);
    expect(SIZE_PROFILES[4]!.images).toBe(1000);
  });
});

describe('cost per 1,000 results', () => {
  it('adds table and index write units, events, SQS and Lambda time, and shows the arithmetic', () => {
    // Prepare: a 2.5 KiB item put once, its publication record claimed and marked (two small
    // updates), three indexes, one event, 0.5 s (0.1 s of it CPU) at 256 MB
    const requests = {
      DYNAMODB: { GetItem: 2, PutItem: 1, UpdateItem: 2 },
      S3: { PutObject: 3, CreateMultipartUpload: 1, UploadPart: 4, CompleteMultipartUpload: 1 },
      EVENTBRIDGE: { PutEvents: 1 },
    };

    // Act
    const cost = costPerThousand({
      requests,
      itemBytes: 2560,
      indexesWritten: 3,
      handlerMs: 500,
      handlerCpuMs: 100,
      memoryMb: 256,
    });

    // Assess: (1 × (3 + 3) + 2 × 1) WRU = 8 WRU; 2 RRU
    expect(cost.perThousand.dynamodb).toBeCloseTo(1000 * (8 * 0.625e-6 + 2 * 0.125e-6), 10);
    expect(cost.perThousand.eventBridge).toBeCloseTo(0.001, 10);
    expect(cost.perThousand.sqs).toBeCloseTo(1000 * 3 * 0.4e-6, 10);
    // Lambda: 0.4 s waiting + 0.1 s CPU at 256/1769 of a vCPU (0.691 s) = 1.091 s at 0.25 GB.
    const lambdaSeconds = 0.4 + 0.1 / (256 / 1769);
    expect(cost.perThousand.lambda).toBeCloseTo(1000 * (0.25 * lambdaSeconds * 0.0000133334 + 0.2e-6), 10);
    expect(cost.perThousand.s3).toBeCloseTo(1000 * 9 * 0.005e-3, 10);
    expect(cost.coreTotal).toBeCloseTo(
      cost.perThousand.dynamodb +
        cost.perThousand.eventBridge +
        cost.perThousand.sqs +
        cost.perThousand.lambda,
      12,
    );
    expect(cost.arithmetic[0]).toContain(
      '1 PutItem × (3 table + 3 index WRU) + 2 UpdateItem × 1 WRU = 8 WRU',
    );
  });
});
