/**
 * The app's templates in a form two synths can be compared in: CDK metadata (construct paths) and asset
 * hashes (function code, the nested stack's template file) are replaced, everything else is kept —
 * logical ids included, because a changed logical id is a replaced resource on the next deploy.
 * `npx tsx test/infra/app-templates.ts --write` stores them as `fixtures/app-template-<env>.json`.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { synthesise } from './stack-fixture';

/** The environments of cdk.json whose templates are pinned. */
export const PINNED_ENVIRONMENTS = ['staging', 'production'] as const;

/** Folder of the pinned templates. */
export const FIXTURE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Root template and every nested template of one environment's stack, normalised. */
export function normalisedAppTemplates(environment: string): Record<string, unknown> {
  const { stack } = synthesise(environment);
  const templates: Record<string, unknown> = { root: normalise(Template.fromStack(stack).toJSON()) };
  for (const child of stack.node.findAll()) {
    if (child instanceof NestedStack && Stack.of(child.node.scope!) === stack) {
      templates[child.node.id] = normalise(Template.fromStack(child).toJSON());
    }
  }
  return templates;
}

const ASSET_HASH = /[0-9a-f]{64}/g;

function normalise(template: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(template), (key, value: unknown) => {
    if (key === 'Metadata') return undefined;
    if (typeof value === 'string') return value.replace(ASSET_HASH, '<asset-hash>');
    return value;
  });
}

if (process.argv.includes('--write')) {
  for (const environment of PINNED_ENVIRONMENTS) {
    const file = path.join(FIXTURE_DIR, `app-template-${environment}.json`);
    writeFileSync(file, `${JSON.stringify(normalisedAppTemplates(environment), null, 1)}\n`);
    process.stdout.write(`wrote ${file}\n`);
  }
}
