/**
 * The size bench's reading against its targets (bench/support/size-floor.ts) and the layout the floor
 * finds images by (bench/support/stream-layout.ts).
 */
import { describe, expect, it } from 'vitest';
import type { SizeFigures } from '../../bench/sizes';
import { sizeFloorTable, sizeSummaryRows } from '../../bench/support/size-floor';
import {
  BODY_TAIL,
  bodyHead,
  generatedBodyBytes,
  IMAGE_TAIL,
  imageHead,
  imageSpans,
} from '../../bench/support/stream-layout';

const row = (
  profile: string,
  images: number,
  bodyBytes: number,
  rounds: SizeFigures['rounds'],
): SizeFigures => ({
  profile,
  ok: true,
  bodyBytes,
  images,
  rounds,
});

describe('size bench against the floor', () => {
  it('reads each round: throughput and CPU per MB against the floor, RSS against its bound', () => {
    // Prepare: 100 MB; floor 1 s and 100 ms of CPU; the result 2 s then twice 1.25 s, CPU 150 then 200 ms
    const rows = [
      row('100mb', 10, 100e6, [
        {
          raw: { ms: 500, cpuMs: 50 },
          floor: { ms: 1000, cpuMs: 100 },
          store: { ms: 2000, cpuMs: 150 },
          guaranteesMs: 30,
        },
        { raw: { ms: 500, cpuMs: 50 }, floor: { ms: 1000, cpuMs: 100 }, store: { ms: 1250, cpuMs: 200 } },
        { raw: { ms: 500, cpuMs: 50 }, floor: { ms: 1000, cpuMs: 100 }, store: { ms: 1250, cpuMs: 200 } },
      ]),
    ];
    rows[0]!.store = {
      ms: 1250,
      cpuMs: 200,
      mbPerSecond: 80,
      rssGrowthBytes: 20 * 1024 * 1024,
      peakRssBytes: 0,
      samples: [],
    };
    rows[0]!.requests = {
      DYNAMODB: { GetItem: 1, UpdateItem: 2 },
      EVENTBRIDGE: { PutEvents: 1 },
      S3: { PutObject: 9 },
    };

    // Act
    const table = sizeFloorTable(rows);

    // Assess: store/floor 0.5 and 0.8; CPU 1.5 and 2 ms/MB against the floor's 1; RSS 20 MiB against
    // 64 + 9.5; 4 requests of the guarantees, 30 ms; the floor at half the raw copy's throughput
    const line = table.split('\n').find((l) => l.startsWith('100mb'))!;
    expect(line.split(/\s{2,}/)).toEqual([
      '100mb',
      '3',
      '0.5/0.8/0.8',
      '1.5/2/2',
      '1/1/1',
      '1.5/2/2',
      '20 (73.5)',
      '4, 30/30/30',
      '0.5/0.5/0.5',
    ]);
  });

  it('judges CPU at 10/50/200 MB, throughput from 50 MiB up, and only reports the fixed cost below', () => {
    // Prepare: a 10mb row (no throughput target) and a 50mb one whose CPU misses its target
    const small = row('10mb', 10, 10 * 1024 * 1024, [
      { floor: { ms: 100, cpuMs: 40 }, store: { ms: 200, cpuMs: 50 }, guaranteesMs: 12 },
    ]);
    const large = row('50mb', 20, 51 * 1024 * 1024, [
      { floor: { ms: 1000, cpuMs: 100 }, store: { ms: 1100, cpuMs: 160 } },
    ]);
    // RSS growth 100 MiB at 10 MiB (bound 65 MiB), 60 MiB at 51 MiB (bound 69.1 MiB)
    for (const [r, grew] of [
      [small, 100],
      [large, 60],
    ] as const) {
      r.store = {
        ms: 0,
        cpuMs: 0,
        mbPerSecond: 0,
        rssGrowthBytes: grew * 1024 * 1024,
        peakRssBytes: 0,
        samples: [],
      };
      r.requests = { DYNAMODB: { GetItem: 1 } };
    }

    // Act
    const rows = sizeSummaryRows([small, large]);

    // Assess
    const verdict = (bench: string, figure: string) =>
      rows.find((r) => r.bench === bench && r.figure.startsWith(figure))?.verdict;
    expect(verdict('sizes 10mb', 'handler CPU')).toBe('met');
    expect(verdict('sizes 10mb', 'throughput')).toBeUndefined();
    expect(rows.find((r) => r.bench === 'sizes 10mb' && r.figure.startsWith('guarantees'))?.value).toBe(
      '1 req, 12 ms; store/floor 0.5',
    );
    expect(verdict('sizes 10mb', 'peak RSS')).toBe('NOT MET');
    expect(verdict('sizes 50mb', 'handler CPU')).toBe('NOT MET');
    expect(verdict('sizes 50mb', 'throughput')).toBe('met');
    expect(verdict('sizes 50mb', 'peak RSS')).toBe('met');
  });

  it('judges no throughput where no floor ran (the held 1 GiB run), only its memory', () => {
    // Act
    const rows = sizeSummaryRows([
      {
        profile: '1gb@256mb',
        ok: true,
        bodyBytes: 1024 * 1024 * 1024,
        images: 64,
        rounds: [],
        store: { rssGrowthBytes: 80 * 1024 * 1024, peakRssBytes: 0, samples: [] },
      } as never,
    ]);

    // Assess
    expect(rows.map((r) => [r.figure, r.verdict])).toEqual([['peak RSS growth MiB', 'met']]);
  });

  it('makes a failed profile a row that is not met', () => {
    // Act
    const rows = sizeSummaryRows([
      { profile: '200mb', ok: false, failure: 'killed', bodyBytes: 1, images: 1 },
    ]);

    // Assess
    expect(rows).toEqual([
      { bench: 'sizes 200mb', figure: 'run', value: 'failed: killed', target: 'ok', verdict: 'NOT MET' },
    ]);
  });
});

describe('generated body layout', () => {
  it.each([
    [3, 96 * 1024],
    [4, 50 * 1024],
    [2, 1],
  ])(
    'finds the base64 of each of %i images of %i bytes where the service writes it',
    (images, imageBytes) => {
      // Prepare: the body as the service writes it, each image's bytes a different filler
      const resultId = 'r-1';
      const blobs = Array.from({ length: images }, (_, i) => Buffer.alloc(imageBytes, i + 1));
      const body = Buffer.from(
        bodyHead(resultId) +
          blobs.map((blob, i) => imageHead(i) + blob.toString('base64') + IMAGE_TAIL).join('') +
          BODY_TAIL,
      );

      // Act
      const spans = imageSpans(resultId, { images, imageBytes });

      // Assess
      expect(body.length).toBe(generatedBodyBytes(resultId, { images, imageBytes }));
      const found = spans.map(([start, end]) => Buffer.from(body.subarray(start, end).toString(), 'base64'));
      expect(found.map((blob, i) => blob.equals(blobs[i]!))).toEqual(blobs.map(() => true));
    },
  );
});
