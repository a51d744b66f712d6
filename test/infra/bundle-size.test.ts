import { beforeAll, describe, expect, it } from 'vitest';
import { measureBundle } from '../../infra/bundling/bundle-size';
import { PipelineFunction } from '../../infra/constructs/pipeline-function';
import { synthesise } from './stack-fixture';

/**
 * What the function bundles hold. Their size is information, not a gate (the bench's target is the cold
 * import, docs/benchmarks.md): what is pinned here is what must never come back into a bundle.
 */
let entries: string[];

beforeAll(() => {
  // Every function of the stack, so a new one is checked without touching this test.
  const { stack } = synthesise('production');
  entries = stack.node
    .findAll()
    .filter((c): c is PipelineFunction => c instanceof PipelineFunction)
    .map((fn) => fn.entry);
});

describe('function bundles', () => {
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

  it('bundle no zod and none of the SDK credential chain Lambda never uses, built as CDK builds them', async () => {
    // Act
    const measures = await Promise.all(entries.map((entry) => measureBundle(entry)));

    // Assess
    for (const m of measures) {
      const names = m.parts.map((p) => p.name);
      for (const unwanted of ['zod', '@aws-sdk/credential-provider-sso', '@aws-sdk/nested-clients']) {
        expect(names, `${m.entry} bundles ${unwanted}`).not.toContain(unwanted);
      }
    }
  });
});
