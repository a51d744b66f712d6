/**
 * cfn-lint over synthesised templates: every error fails, except the findings listed in
 * {@link SCHEMA_LAG}, where cfn-lint's resource schema is older than what aws-cdk-lib writes and
 * CloudFormation accepts. Nothing else is ignored. Used by test/infra/cfn-lint.test.ts (the app's
 * environments) and test/integration/package-install.test.ts (the app `cdk init` generates).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A finding cfn-lint reports that is its schema lagging behind CloudFormation, with why. */
export interface SchemaLag {
  /** The cfn-lint rule. */
  readonly rule: string;
  /** The resource type. */
  readonly type: string;
  /** The property path under `Properties`. */
  readonly property: string;
  /** Why the property is right. */
  readonly why: string;
}

/** The one list of findings ignored (cfn-lint 1.51.0): each is a property CloudFormation takes today. */
export const SCHEMA_LAG: readonly SchemaLag[] = [
  {
    rule: 'E3002',
    type: 'AWS::CloudWatch::Dashboard',
    property: 'Tags',
    why:
      'CloudWatch dashboards take tags in CloudFormation (aws-cdk-lib 2.276 writes the stack tags there); ' +
      "cfn-lint's bundled schema predates the property.",
  },
  {
    rule: 'E3002',
    type: 'AWS::Glue::TableOptimizer',
    property: 'TableOptimizerConfiguration.CompactionConfiguration',
    why:
      "Glue table optimizers take the compaction strategy (the Iceberg table's compaction, infra/constructs/" +
      "analytics-iceberg.ts); cfn-lint's bundled schema predates the property.",
  },
];

/** How to install cfn-lint where it is missing. */
export const CFN_LINT_MISSING =
  'cfn-lint is not installed here: install it with `pipx install cfn-lint` (or `pip install cfn-lint`, ' +
  'Python 3.9+), then run the test again';

interface Finding {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Filename: string;
  readonly Message: string;
  readonly Location: { readonly Path: (string | number)[] };
}

/** Whether the `cfn-lint` command runs here. */
export async function cfnLintAvailable(): Promise<boolean> {
  try {
    await run('cfn-lint', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lints `files` and returns the errors not listed in {@link SCHEMA_LAG}, each as
 * `file: rule at path: message`, and how many listed ones were seen.
 */
export async function cfnLintErrors(files: readonly string[]): Promise<{ errors: string[]; lag: number }> {
  let stdout: string;
  try {
    ({ stdout } = await run('cfn-lint', ['--format', 'json', '--', ...files], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10 * 60_000,
    }));
  } catch (error) {
    // cfn-lint exits non-zero when it finds something; its findings are still on stdout.
    const failed = error as { stdout?: string; stderr?: string };
    if (!failed.stdout?.trim().startsWith('[')) throw new Error(`cfn-lint failed: ${failed.stderr ?? error}`);
    stdout = failed.stdout;
  }
  const findings = (JSON.parse(stdout) as Finding[]).filter((f) => f.Level === 'Error');
  const types = new Map<string, Record<string, { Type: string }>>();
  const typeOf = (file: string, logicalId: string) => {
    if (!types.has(file)) {
      const template = JSON.parse(readFileSync(file, 'utf8')) as {
        Resources?: Record<string, { Type: string }>;
      };
      types.set(file, template.Resources ?? {});
    }
    return types.get(file)![logicalId]?.Type;
  };
  const listed = (f: Finding) => {
    const [section, logicalId, properties, ...path] = f.Location.Path;
    if (section !== 'Resources' || properties !== 'Properties') return false;
    const type = typeOf(f.Filename, String(logicalId));
    return SCHEMA_LAG.some(
      (lag) => lag.rule === f.Rule.Id && lag.type === type && lag.property === path.join('.'),
    );
  };
  return {
    errors: findings
      .filter((f) => !listed(f))
      .map((f) => `${f.Filename}: ${f.Rule.Id} at ${f.Location.Path.join('/')}: ${f.Message}`),
    lag: findings.filter(listed).length,
  };
}
