/**
 * The size bench's reading against its targets (bench/support/size-floor.ts) and the layout the floor
 * finds images by (bench/support/stream-layout.ts).
 */
import { describe, expect, it } from 'vitest';
import type { SizeFigures } from '../../bench/sizes';
import { perImageMs, sizeFloorTable, spread } from '../../bench/support/size-floor';
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
  it('gives min/median/max', () => {
    // Assess
    expect(spread([3, 1, 2])).toBe('1/2/3');
    expect(spread([])).toBe('-');
  });

  it('reads each round: throughput over the raw copy, CPU per MB and over the floor', () => {
    // Prepare: 100 MB; raw 1 s, result 2 s then twice 1.25 s; CPU 150 then 200 ms against a floor of 100
    const rows = [
      row('100mb', 10, 100e6, [
        {
          raw: { ms: 1000, cpuMs: 50, hostCpuMs: 60 },
          floor: { ms: 900, cpuMs: 100 },
          store: { ms: 2000, cpuMs: 150, hostCpuMs: 250 },
        },
        {
          raw: { ms: 1000, cpuMs: 50, hostCpuMs: 70 },
          floor: { ms: 900, cpuMs: 100 },
          store: { ms: 1250, cpuMs: 200, hostCpuMs: 200 },
        },
        {
          raw: { ms: 1000, cpuMs: 50, hostCpuMs: 80 },
          floor: { ms: 900, cpuMs: 100 },
          store: { ms: 1250, cpuMs: 200, hostCpuMs: 210 },
        },
      ]),
    ];

    // Act
    const table = sizeFloorTable(rows);

    // Assess: store/raw 0.5 and 0.8; the floor 1000/900 of the raw copy's throughput; the result 0.45
    // and 0.72 of the floor's; CPU 1.5 and 2 ms/MB, floor 1 ms/MB, CPU/floor 1.5 and 2; the bench
    // process's CPU (the emulators) at its medians, 70 during the raw copy and 210 during the result
    const line = table.split('\n').find((l) => l.startsWith('100mb'))!;
    expect(line.split(/\s+/)).toEqual([
      '100mb',
      '3',
      '100/100/100',
      '0.5/0.8/0.8',
      '1.11/1.11/1.11',
      '0.45/0.72/0.72',
      '1.5/2/2',
      '1/1/1',
      '1.5/2/2',
      '70→210',
    ]);
  });

  it('counts the CPU per image beyond the bytes at the largest few-image profile`s CPU per MB', () => {
    // Prepare: 2 ms per MB at 200 MB; 1,000 images in 50 MB took 600 ms, 100 of them the bytes'
    const reference = row('200mb', 40, 200e6, [{ store: { ms: 1, cpuMs: 400 } }]);
    const many = row('many', 1000, 50e6, [{ store: { ms: 1, cpuMs: 600 }, floor: { ms: 1, cpuMs: 550 } }]);

    // Act
    const perImage = perImageMs(many, reference);
    const table = sizeFloorTable([reference, many]);

    // Assess
    expect(perImage).toEqual([0.5]);
    expect(table).toContain("many: CPU per image beyond its bytes (at 200mb's CPU per MB) 0.5/0.5/0.5 ms");
    expect(table).toContain('beyond the floor');
    expect(table).toContain('0.05/0.05/0.05 ms');
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
