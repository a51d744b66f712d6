/**
 * The integration suite without integ-runner (integ-tests-alpha's README: the suite is a CDK app):
 * `cdk deploy` of every stack of test/integ/integ.idv-pipeline.ts, its assertions' outputs checked
 * (`AssertionResults…`, each `{"status":"success"}`), then `cdk destroy`, whatever happened. Needs AWS
 * credentials of the target account (`npm run integ:deploy`; docs/deploy.md, "Prove it in your account").
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const APP = 'npx tsx test/integ/integ.idv-pipeline.ts';

/** The assertions that did not pass, from `cdk deploy --outputs-file`'s JSON. */
export function failedAssertions(outputs: Record<string, Record<string, string>>): string[] {
  const results = Object.values(outputs).flatMap((stack) =>
    Object.entries(stack).filter(([key]) => key.startsWith('AssertionResults')),
  );
  if (results.length === 0) return ['no AssertionResults output: was the assertions stack deployed?'];
  return results
    .filter(([, value]) => {
      try {
        return (JSON.parse(value) as { status?: string }).status !== 'success';
      } catch {
        return true;
      }
    })
    .map(([key, value]) => `${key}: ${value.slice(0, 500)}`);
}

function cdk(args: string[]): number {
  const run = spawnSync(
    'npx',
    ['cdk', ...args, '--app', APP, '--output', 'test/integ/cdk-integ.out.direct'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
    },
  );
  return run.status ?? 1;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(path.join(tmpdir(), 'idv-integ-'));
  const outputsFile = path.join(dir, 'outputs.json');
  let failed: string[] = [];
  try {
    const deployed = cdk(['deploy', '--all', '--require-approval', 'never', '--outputs-file', outputsFile]);
    failed =
      deployed === 0
        ? failedAssertions(
            JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>,
          )
        : [`cdk deploy exited ${deployed}`];
  } finally {
    const destroyed = cdk(['destroy', '--all', '--force']);
    if (destroyed !== 0) failed.push(`cdk destroy exited ${destroyed}: delete the stacks by hand`);
    rmSync(dir, { recursive: true, force: true });
  }
  for (const line of failed) process.stderr.write(`integ: ${line}\n`);
  process.stdout.write(failed.length === 0 ? 'integ: every assertion passed; destroyed\n' : '');
  process.exitCode = failed.length === 0 ? 0 : 1;
}
