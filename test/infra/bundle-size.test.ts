import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleCeilingKiB, MAX_BUNDLE_KIB, measureBundle } from '../../infra/bundling/bundle-size';
import LRUCache from '../../infra/bundling/lru-cache';
import { gte } from '../../infra/bundling/semver-gte';
import { PipelineFunction } from '../../infra/constructs/pipeline-function';
import { synthesise } from './stack-fixture';

let entries: string[];

beforeAll(() => {
  // Every function of the stack, so a new one is measured without touching this test.
  const { stack } = synthesise('production');
  entries = stack.node
    .findAll()
    .filter((c): c is PipelineFunction => c instanceof PipelineFunction)
    .map((fn) => fn.entry);
});

describe('function bundles stay small', () => {
  it('finds the functions of the stack', () => {
    // Assess
    expect(entries).toEqual(
      expect.arrayContaining([
        'functions/webhook/handler.ts',
        'functions/poll/handler.ts',
        'functions/fetch-result/handler.ts',
      ]),
    );
  });

  it(`keeps every bundle at or under ${MAX_BUNDLE_KIB} KiB (or its ceiling) minified, built as CDK builds it`, async () => {
    // Act
    const measures = await Promise.all(entries.map((entry) => measureBundle(entry)));

    // Assess: the message names the bundle and its largest parts, which is where to look.
    for (const m of measures) {
      const top = m.parts
        .slice(0, 6)
        .map((p) => `${p.name} ${(p.bytes / 1024).toFixed(0)}`)
        .join(', ');
      expect(m.bytes / 1024, `${m.entry}: ${(m.bytes / 1024).toFixed(1)} KiB (${top})`).toBeLessThanOrEqual(
        bundleCeilingKiB(m.entry),
      );
    }
  });

  it('holds webhook and poll to the limit itself', () => {
    // Assess: only fetch-result has a ceiling above the limit (see BUNDLE_CEILINGS_KIB).
    expect(bundleCeilingKiB('functions/webhook/handler.ts')).toBe(MAX_BUNDLE_KIB);
    expect(bundleCeilingKiB('functions/poll/handler.ts')).toBe(MAX_BUNDLE_KIB);
  });

  it('bundles no zod, no semver and none of the SDK credential chain Lambda never uses', async () => {
    // Act
    const measures = await Promise.all(entries.map((entry) => measureBundle(entry)));

    // Assess
    for (const m of measures) {
      const names = m.parts.map((p) => p.name);
      for (const unwanted of [
        'zod',
        'semver',
        '@aws-sdk/credential-provider-sso',
        '@aws-sdk/nested-clients',
        'mnemonist',
      ]) {
        expect(names, `${m.entry} bundles ${unwanted}`).not.toContain(unwanted);
      }
    }
  });
});

describe('the semver stand-in of the bundles', () => {
  // The real package, as the X-Ray SDK loads it outside a bundle: the stand-in must answer gte as it does.
  const real = (createRequire(import.meta.url)('semver') as { gte: typeof gte }).gte;

  it('orders versions as semver does, pre-releases below their release', () => {
    // Arrange
    const versions = [
      '2.7.15',
      '2.7.14',
      '2.7.16',
      '2.8.0',
      '3.0.0',
      'v2.7.15',
      '2.10.0',
      '10.0.0',
      '2.7.15-beta.1',
      '2.7.15-beta.2',
      '2.7.15-alpha',
      '2.7.15-beta.11',
      '2.7.15+build.5',
      '1.999.999',
      '0.0.0',
    ];

    // Act / Assess
    for (const a of versions) {
      for (const b of versions) expect(gte(a, b), `${a} >= ${b}`).toBe(real(a, b));
    }
  });

  it('refuses what is not a version, as semver does', () => {
    // Assess
    expect(() => gte('latest', '2.7.15')).toThrow('Invalid Version: latest');
    expect(() => gte(undefined as unknown as string, '2.7.15')).toThrow(TypeError);
  });
});

describe('the LRU stand-in of the bundles', () => {
  // The real package, as the DynamoDB client's endpoint cache loads it outside a bundle.
  type Lru = {
    get(k: string): number | undefined;
    set(k: string, v: number): unknown;
    has(k: string): boolean;
    peek(k: string): number | undefined;
    clear(): void;
    size: number;
  };
  const Real = createRequire(import.meta.url)('mnemonist/lru-cache') as new (capacity: number) => Lru;

  it('keeps, evicts and answers as mnemonist does, step by step', () => {
    // Arrange: a fixed pseudo-random run of every method the endpoint cache calls, on a cache of 3.
    const real = new Real(3);
    const standIn: Lru = new LRUCache<string, number>(3);
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };

    // Act / Assess
    for (let step = 0; step < 2_000; step++) {
      const key = `k${next() % 6}`;
      const op = next() % 9;
      if (op < 3) {
        real.set(key, step);
        standIn.set(key, step);
      } else if (op < 5) expect(standIn.get(key), `get ${key} at ${step}`).toBe(real.get(key));
      else if (op < 7) expect(standIn.peek(key), `peek ${key} at ${step}`).toBe(real.peek(key));
      else if (op < 8) expect(standIn.has(key), `has ${key} at ${step}`).toBe(real.has(key));
      else if (step % 97 === 0) {
        real.clear();
        standIn.clear();
      }
      expect(standIn.size).toBe(real.size);
    }
  });
});
