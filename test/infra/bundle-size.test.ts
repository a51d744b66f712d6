import { beforeAll, describe, expect, it } from 'vitest';
import { bundleCeilingKiB, MAX_BUNDLE_KIB, measureBundle } from '../../infra/bundling/bundle-size';
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

describe('function bundles (issue 10: small bundles)', () => {
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

  it('bundles no language pack of zod and none of the SDK credential chain Lambda never uses', async () => {
    // Act
    const m = await measureBundle('functions/fetch-result/handler.ts');

    // Assess
    const names = m.parts.map((p) => p.name);
    expect(names).not.toContain('@aws-sdk/credential-provider-sso');
    expect(names).not.toContain('@aws-sdk/nested-clients');
    expect(m.parts.find((p) => p.name === 'zod')?.bytes ?? 0).toBeLessThan(60 * 1024);
  });
});
