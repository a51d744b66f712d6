import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEnvironments } from '../../infra/config';
import { PipelineStack, stackName } from '../../infra/pipeline-stack';
import { CFN_LINT_MISSING, cfnLintAvailable, cfnLintErrors, SCHEMA_LAG } from './cfn-lint';
import { cdkJsonContext } from './stack-fixture';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** Every environment of cdk.json, synthesised as `npm run synth` does, into a fresh cloud assembly. */
function synthesiseEnvironments(): string[] {
  const context = cdkJsonContext();
  const outdir = mkdtempSync(path.join(tmpdir(), 'idv-cfn-lint-'));
  outdirs.push(outdir);
  const app = new App({
    outdir,
    context: { ...context, 'aws:cdk:bundling-stacks': [], allowPlaceholders: 'true' },
  });
  for (const config of loadEnvironments(context['environments'])) {
    new PipelineStack(app, stackName(config.name), { config });
  }
  app.synth();
  return readdirSync(outdir)
    .filter((f) => f.endsWith('.template.json'))
    .map((f) => path.join(outdir, f));
}

describe('cfn-lint', () => {
  it(
    "passes every template of every cdk.json environment (root and nested) but for the linter's listed schema lag",
    async () => {
      // Prepare
      expect(await cfnLintAvailable(), CFN_LINT_MISSING).toBe(true);
      const templates = synthesiseEnvironments();

      // Act
      const { errors, lag } = await cfnLintErrors(templates);

      // Assess
      const environments = Object.keys(cdkJsonContext()['environments'] as object);
      expect(templates.length).toBe(environments.length * 2);
      expect(errors).toEqual([]);
      // Each listed finding is seen (else the linter caught up and the entry goes).
      expect(lag).toBeGreaterThanOrEqual(SCHEMA_LAG.length);
    },
    10 * 60_000,
  );
});
