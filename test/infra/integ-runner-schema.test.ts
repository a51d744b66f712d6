/**
 * The guarded integ-runner patch (test/integ/integ-runner-schema.ts): applied here at install, and refusing
 * any runner or schema other than the ones compared, on a made-up install.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failedAssertions } from '../integ/deploy-without-runner';
import {
  PINNED_RUNNER,
  patchRunner,
  RUNNER_REVISION,
  runnerState,
  TARGET_REVISION,
} from '../integ/integ-runner-schema';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The schemas of a made-up install: the runner's and aws-cdk-lib's differ where `change` says. */
function install(options: {
  runner?: string;
  runnerRevision?: number;
  libRevision?: number;
  libAssembly?: Record<string, unknown>;
}): string {
  const root = mkdtempSync(path.join(tmpdir(), 'idv-integ-runner-'));
  roots.push(root);
  const runnerAssembly = { definitions: { MetadataEntry: { anyOf: [1] }, Stack: { type: 'object' } } };
  const libAssembly = options.libAssembly ?? {
    definitions: {
      MetadataEntry: { anyOf: [1, 2] },
      PropertyMutationMetadataEntry: { type: 'object' },
      Stack: { type: 'object' },
    },
  };
  const assets = { definitions: { FileAsset: { type: 'object' } } };
  const module = (name: string, value: unknown) =>
    `var x = __commonJS({\n  "../cloud-assembly-schema/schema/${name}"(exports2, module2) {\n    module2.exports = ${JSON.stringify(value)};\n  }\n});\n`;
  const runner = path.join(root, 'node_modules', '@aws-cdk', 'integ-runner');
  mkdirSync(path.join(runner, 'lib', 'workers', 'extract'), { recursive: true });
  writeFileSync(
    path.join(runner, 'package.json'),
    JSON.stringify({ version: options.runner ?? PINNED_RUNNER }),
  );
  writeFileSync(
    path.join(runner, 'lib', 'workers', 'extract', 'index.js'),
    module('assets.schema.json', assets) +
      module('cloud-assembly.schema.json', runnerAssembly) +
      `var v = __commonJS({\n  "../cloud-assembly-schema/schema/version.json"(exports2, module2) {\n    module2.exports = {\n      revision: ${options.runnerRevision ?? RUNNER_REVISION}\n    };\n  }\n});\n`,
  );
  const lib = path.join(root, 'node_modules', 'aws-cdk-lib');
  mkdirSync(lib, { recursive: true });
  writeFileSync(path.join(lib, 'package.json'), JSON.stringify({ name: 'aws-cdk-lib' }));
  const schema = path.join(root, 'node_modules', '@aws-cdk', 'cloud-assembly-schema');
  mkdirSync(path.join(schema, 'schema'), { recursive: true });
  writeFileSync(
    path.join(schema, 'package.json'),
    JSON.stringify({ name: '@aws-cdk/cloud-assembly-schema' }),
  );
  writeFileSync(path.join(schema, 'schema', 'assets.schema.json'), JSON.stringify(assets));
  writeFileSync(path.join(schema, 'schema', 'cloud-assembly.schema.json'), JSON.stringify(libAssembly));
  writeFileSync(
    path.join(schema, 'schema', 'version.json'),
    JSON.stringify({ revision: options.libRevision ?? TARGET_REVISION }),
  );
  return root;
}

describe('the integ-runner schema patch', () => {
  it('is applied to this install (npm ci runs it as prepare): the runner reads schema 55', () => {
    // Act
    const state = runnerState();

    // Assess
    expect(['patched', 'not-needed'], state.reason).toContain(state.status);
  });

  it('raises the pinned runner from 53 to 55 when the schemas differ only where compared, once', () => {
    // Prepare
    const root = install({});

    // Act
    const first = patchRunner(root);
    const second = patchRunner(root);
    const extract = readFileSync(
      path.join(root, 'node_modules', '@aws-cdk', 'integ-runner', 'lib', 'workers', 'extract', 'index.js'),
      'utf8',
    );

    // Assess
    expect(first.status).toBe('patched');
    expect(second.status).toBe('patched');
    expect(extract.match(/revision: 55 \/\* idv-pipeline/g)).toHaveLength(1);
  });

  it.each<[string, Parameters<typeof install>[0], RegExp]>([
    ['another runner version', { runner: '2.198.0' }, /is not 2\.197\.10/],
    ['another built-in revision', { runnerRevision: 52 }, /carries schema 52/],
    ['aws-cdk-lib writing another revision', { libRevision: 56 }, /writes schema 56/],
    [
      'a difference in what is deployed',
      { libAssembly: { definitions: { MetadataEntry: { anyOf: [1] }, Stack: { type: 'array' } } } },
      /differs from the runner's where it was not compared \(definitions\.Stack/,
    ],
  ])('refuses %s, patching nothing', (_, options, reason) => {
    // Prepare
    const root = install(options);

    // Act
    const state = patchRunner(root);

    // Assess
    expect(state.status).toBe('refused');
    expect(state.reason).toMatch(reason);
    expect(runnerState(root).status).toBe('refused');
  });

  it('says the patch can go once the runner reads 55 itself', () => {
    // Act
    const state = patchRunner(install({ runner: '2.300.0', runnerRevision: 55 }));

    // Assess
    expect(state.status).toBe('not-needed');
    expect(state.reason).toContain('drop the patch');
  });
});

describe('the integration suite without the runner (npm run integ:deploy)', () => {
  it('passes only when every assertion output says success', () => {
    // Act
    const passed = failedAssertions({ Assert: { AssertionResultsA1: '{"status":"success"}' } });
    const failed = failedAssertions({
      Assert: {
        AssertionResultsA1: '{"status":"success"}',
        AssertionResultsB2: '{"status":"fail","message":"Expected 2, got 1"}',
      },
      Suite: { WebhookBaseUrl: 'https://x' },
    });
    const none = failedAssertions({ Suite: { WebhookBaseUrl: 'https://x' } });

    // Assess
    expect(passed).toEqual([]);
    expect(failed).toEqual(['AssertionResultsB2: {"status":"fail","message":"Expected 2, got 1"}']);
    expect(none).toEqual(['no AssertionResults output: was the assertions stack deployed?']);
  });
});
