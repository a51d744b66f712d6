/**
 * The packed package, installed where there is no TypeScript, tsx or esbuild: `npm pack` (which builds
 * dist/ through `prepack`), the tarball unpacked into a fresh directory's node_modules, and beside it only
 * the packages it declares (production and peer dependencies, taken from this repository's install:
 * `npm install --offline` cannot resolve version ranges without the registry's metadata, which the
 * offline cache does not hold) plus cdk-nag and @types/node for the consumer. A dependency the compiled
 * code uses without declaring it fails here.
 *
 * Then the platform team's own app is the harness (test/integration/cdk-init-app.ts): the app `cdk init app
 * --language typescript` generates, installed once with `npm install` of the tarball, runs every documented
 * snippet that composes the construct and every RemovalPolicy through `cdk synth`, as CommonJS and ESM,
 * type-checks the package with TypeScript 7 and 5.9 (skipLibCheck off), and cfn-lints what it wrote.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling/lambda-bundling';
import { DETAIL_TYPES } from '../../shared/events/names';
import { CFN_LINT_MISSING, cfnLintAvailable, cfnLintErrors } from '../infra/cfn-lint';
import {
  appEntry,
  type CfnResource,
  cdkSynth,
  docSnippets,
  esmCopyOf,
  generateApp,
  importedPackages,
  runIn,
  templatesIn,
} from './cdk-init-app';

const run = promisify(execFile);
const MINUTES = 60_000;

let dir: string;
let tarball: string;

/**
 * Runs `command args` in `cwd` with only PATH, HOME and `env` in its environment; never throws, returns
 * the exit code and output.
 */
async function commandIn(cwd: string, command: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
      timeout: 5 * MINUTES,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Runs a command in the consumer directory; never throws, returns the exit code and output. */
function inConsumer(command: string, args: string[], env: Record<string, string> = {}) {
  return commandIn(dir, command, args, env);
}

async function link(name: string, into = dir, source = join(PROJECT_ROOT, 'node_modules', name)) {
  const target = join(into, 'node_modules', name);
  await mkdir(dirname(target), { recursive: true });
  await symlink(source, target);
}

/**
 * A CommonJS consumer's folder under the consumer directory: the installed package, its peers and
 * @types/node, linked (what `npm install idv-pipeline` would give it, without the registry).
 */
async function commonJsConsumer(name: string, create?: (folder: string) => Promise<void>): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  // `cdk init` wants an empty folder.
  await create?.(folder);
  await link('idv-pipeline', folder, join(dir, 'node_modules', 'idv-pipeline'));
  for (const peer of ['aws-cdk-lib', 'constructs', '@types/node']) await link(peer, folder);
  return folder;
}

/** Runs `node <args>` in `cwd`; never throws. */
function nodeIn(cwd: string, args: string[], env: Record<string, string> = {}) {
  return commandIn(cwd, process.execPath, args, env);
}

const TSC = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-package-'));
  const packed = await run('npm', ['pack', '--pack-destination', dir, '--silent'], {
    cwd: PROJECT_ROOT,
    timeout: 5 * MINUTES,
    maxBuffer: 64 * 1024 * 1024,
  });
  tarball = join(dir, packed.stdout.trim().split('\n').pop()!);
  const installed = join(dir, 'node_modules', 'idv-pipeline');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  for (const name of [
    ...Object.keys(manifest.dependencies),
    ...Object.keys(manifest.peerDependencies),
    'cdk-nag',
    '@types/node',
  ]) {
    await link(name);
  }
  await mkdir(join(dir, 'node_modules', '.bin'));
  await symlink('../idv-pipeline/bin/idv.mjs', join(dir, 'node_modules', '.bin', 'idv'));
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
}, 10 * MINUTES);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed idv-pipeline', () => {
  it('holds compiled JavaScript, declarations and the prebuilt Lambda bundles, no TypeScript source', async () => {
    // Act
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');

    // Assess
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    for (const name of ['webhook', 'poll', 'fetch-result', 'projector', 'retention-check']) {
      expect(files).toContain(`package/dist/lambda/${name}/index.mjs`);
    }
    for (const entry of [
      'cdk/index.js',
      'client/index.js',
      'client/index.cjs',
      'events/index.js',
      'cli/idv.mjs',
    ]) {
      expect(files).toContain(`package/dist/${entry}`);
    }
    expect(files).toContain('package/dist/types/infra/index.d.ts');
  });

  it('installs for its client in at most 40 MB: the package and its two dependencies, no SDK, no DuckDB', async () => {
    // Prepare
    const installed = join(dir, 'node_modules', 'idv-pipeline');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };

    // Act: what `npm install idv-pipeline` puts into node_modules (optional peers are not installed).
    const folders = [
      installed,
      ...Object.keys(manifest.dependencies).map((d) => join(dir, 'node_modules', d)),
    ];
    const { stdout } = await run('du', ['-skLc', ...folders]);
    const totalMb = Number(stdout.trim().split('\n').pop()!.split(/\s+/)[0]) / 1024;

    // Assess
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['csv-parse', 'zod']);
    expect(totalMb).toBeLessThanOrEqual(40);
  });

  it(
    'serves a consumer app (own key, bucket and bus, a second pipeline, a permissions boundary), cdk-nag clean',
    async () => {
      // Prepare
      await writeFile(join(dir, 'app.mjs'), CONSUMER_APP);

      // Act
      const synth = await inConsumer(process.execPath, ['app.mjs']);
      const out = join(dir, 'cdk.out');
      const templates = readdirSync(out)
        .filter((f) => f.endsWith('.template.json'))
        .map(
          (f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as { Resources: Record<string, Resource> },
        );
      const resources = templates.flatMap((t) => Object.values(t.Resources));
      const roles = resources.filter((r) => r.Type === 'AWS::IAM::Role');
      const functions = resources.filter((r) => r.Type === 'AWS::Lambda::Function');
      const assets = readdirSync(out).filter((f) => f.startsWith('asset.'));

      // Assess
      expect(synth.code, synth.stderr).toBe(0);
      expect(synth.stdout).toContain('synthesised');
      // Two pipelines: webhook, poll, fetch-result, the retention check and the analytics transform each.
      expect(functions).toHaveLength(10);
      for (const fn of functions) expect(fn.Properties['Handler']).toBe('index.handler');
      expect(roles.length).toBeGreaterThanOrEqual(9);
      for (const role of roles) expect(role.Properties['PermissionsBoundary']).toBeDefined();
      expect(assets.filter((a) => existsSync(join(out, a, 'index.mjs'))).length).toBe(5);
    },
    5 * MINUTES,
  );

  it(
    'gives a plain Node script the client and the events, loading neither aws-cdk-lib nor the AWS SDK',
    async () => {
      // Prepare
      await writeFile(join(dir, 'forbid.mjs'), FORBID_HOOK);
      await writeFile(
        join(dir, 'register-forbid.mjs'),
        "import { register } from 'node:module';\nregister('./forbid.mjs', import.meta.url);\n",
      );
      await writeFile(join(dir, 'client.mjs'), CLIENT_SCRIPT);

      // Act
      const esm = await inConsumer(process.execPath, ['--import', './register-forbid.mjs', 'client.mjs']);
      const cjs = await inConsumer(process.execPath, [
        '-e',
        "const c = require('idv-pipeline/client'); console.log(typeof c.IdvClient, typeof c.NotFoundError)",
      ]);

      // Assess
      expect(esm.code, esm.stderr).toBe(0);
      expect(JSON.parse(esm.stdout)).toEqual({
        client: 'function',
        notFound: true,
        schemas: Object.keys(DETAIL_TYPES).length,
        match: true,
      });
      expect(cjs.stdout.trim()).toBe('function function');
    },
    MINUTES,
  );

  it(
    'serves an app of the earlier CDK template (module commonjs, node10 resolution, as ts-node ran it)',
    async () => {
      // Prepare
      const app = await commonJsConsumer('legacy-app');
      await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'legacy-app', version: '0.1.0' }));
      await writeFile(join(app, 'tsconfig.json'), JSON.stringify(LEGACY_TSCONFIG));
      await writeFile(join(app, 'app.ts'), LEGACY_APP);

      // Act: ts-node type-checks with the tsconfig and runs what it compiles; so do these two steps.
      const tsc = await nodeIn(app, [TSC]);
      const synth = await nodeIn(app, ['out/app.js'], { CDK_OUTDIR: 'cdk.out' });

      // Assess
      expect(tsc.code, tsc.stdout).toBe(0);
      expect(synth.code, synth.stderr).toBe(0);
      expect(synth.stdout.trim()).toBe(
        `synthesised: client function, events ${Object.keys(DETAIL_TYPES).length}`,
      );
    },
    5 * MINUTES,
  );

  it(
    'runs the idv bin without tsx',
    async () => {
      // Act
      const help = await inConsumer('npx', ['--offline', '--no-install', 'idv', '--help']);

      // Assess
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: idv <command> [flags]');
      expect(existsSync(join(dir, 'node_modules', 'tsx'))).toBe(false);
    },
    MINUTES,
  );
});

/** Context the documented apps read (`app.node.getContext`): real-looking addresses, no placeholders. */
const SNIPPET_CONTEXT = {
  idvServiceBaseUrl: 'https://verification.acme-corp.io',
  oncallEmail: 'idv-oncall@acme-corp.io',
};

/** The stores that keep results, keys and logs: what no removal policy but DESTROY may delete. */
const STORE_TYPES = [
  'AWS::KMS::Key',
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::SecretsManager::Secret',
  'AWS::Logs::LogGroup',
];

/** Resources of `templates` of `type`; the enqueue-markers table (transient, always deleted) left out. */
function stores(templates: ReturnType<typeof templatesIn>): CfnResource[] {
  return Object.values(templates)
    .flatMap((t) => Object.values(t.Resources ?? {}))
    .filter((r) => STORE_TYPES.includes(r.Type))
    .filter(
      (r) => r.Type !== 'AWS::DynamoDB::Table' || r.Properties?.['GlobalSecondaryIndexes'] !== undefined,
    );
}

/** How many `type` resources the assembly in `outdir` holds, over every stack. */
function countOf(outdir: string, type: string): number {
  return Object.values(templatesIn(outdir))
    .flatMap((t) => Object.values(t.Resources ?? {}))
    .filter((r) => r.Type === type).length;
}

describe('the app `cdk init app --language typescript` generates, as the harness', () => {
  const snippets = docSnippets();
  let app: string;
  let esmApp: string;
  let generatedDependencies: string[];
  let install: Awaited<ReturnType<typeof runIn>>;
  /** The cloud assemblies the CommonJS app wrote, for one cfn-lint run. */
  const synthesised: string[] = [];

  beforeAll(async () => {
    // One app, generated by the CDK CLI as `cdk init` writes it, installed once with `npm install`: the
    // tarball and every package the documents' install lines name.
    app = await generateApp(dir, 'platform-app');
    generatedDependencies = Object.keys(
      (JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as { dependencies: object })
        .dependencies,
    );
    const lines = new Set(snippets.flatMap((s) => s.installs).filter((p) => p !== 'idv-pipeline'));
    install = await runIn(app, 'npm', [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      ...lines,
    ]);
    esmApp = esmCopyOf(app, join(dir, 'platform-app-esm'));
  }, 10 * MINUTES);

  it('is the generated app with every feature flag of cdk init, installed with the tarball', async () => {
    // Act
    const cdkJson = JSON.parse(await readFile(join(app, 'cdk.json'), 'utf8')) as {
      app: string;
      context: Record<string, unknown>;
    };
    const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as {
      type?: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };

    // Assess
    expect(install.code, install.stderr).toBe(0);
    expect(cdkJson.app).toMatch(/^npx tsc && npx tsx bin\/platform-app\.ts$/);
    expect(cdkJson.context['@aws-cdk/core:validateSnapshotRemovalPolicy']).toBe(true);
    expect(Object.keys(cdkJson.context).filter((k) => k.startsWith('@aws-cdk')).length).toBeGreaterThan(50);
    expect(manifest.type).toBeUndefined();
    expect(manifest.dependencies['idv-pipeline']).toMatch(/\.tgz$/);
    expect(Object.keys(manifest.devDependencies)).toEqual(
      expect.arrayContaining(['aws-cdk', 'typescript', 'tsx']),
    );
  });

  it('finds the snippets that compose the construct, each under an install line', () => {
    // Assess
    expect(snippets.map((s) => s.doc)).toEqual(expect.arrayContaining(['README.md', 'docs/construct.md']));
    for (const snippet of snippets) expect(snippet.installs, snippet.doc).toContain('idv-pipeline');
  });

  it.each(snippets.map((s) => [`${s.doc}:${s.line}`, s] as const))(
    'synthesises %s as written through the CDK CLI (CommonJS): one API Gateway account setting, cfn-lint clean',
    async (_, snippet) => {
      // Prepare: the snippet is the app's entry; what it imports must be what its document installs.
      const missing = importedPackages(snippet.code).filter(
        (p) => !snippet.installs.includes(p) && !generatedDependencies.includes(p),
      );
      await writeFile(appEntry(app), snippet.code);
      const outdir = join(app, `cdk.out.${snippet.doc.replace(/\W/g, '-')}-${snippet.line}`);

      // Act
      const synth = await cdkSynth(app, outdir, SNIPPET_CONTEXT);

      // Assess
      expect(missing, `imported, but not in ${snippet.doc}'s install line`).toEqual([]);
      expect(synth.code, `${synth.stdout}\n${synth.stderr}`).toBe(0);
      expect(countOf(outdir, 'AWS::ApiGateway::Stage')).toBeGreaterThanOrEqual(1);
      expect(countOf(outdir, 'AWS::ApiGateway::Account')).toBe(1);
      synthesised.push(outdir);
    },
    8 * MINUTES,
  );

  it(
    'synthesises every RemovalPolicy through the CDK CLI, deleting no store unless DESTROY was asked',
    async () => {
      // Prepare
      await writeFile(appEntry(app), REMOVAL_POLICY_APP);
      const outdir = join(app, 'cdk.out.removal');

      // Act
      const synth = await cdkSynth(app, outdir);
      const templates = templatesIn(outdir);
      const policiesOf = (stack: string) =>
        new Set(
          stores(
            Object.fromEntries(Object.entries(templates).filter(([file]) => file.startsWith(stack))),
          ).map((r) => r.DeletionPolicy),
        );

      // Assess
      expect(synth.code, `${synth.stdout}\n${synth.stderr}`).toBe(0);
      expect(policiesOf('Policy1')).toEqual(new Set(['Delete']));
      expect(policiesOf('Policy2')).toEqual(new Set(['Retain']));
      expect(policiesOf('Policy3')).toEqual(new Set(['Retain']));
      expect(policiesOf('Policy4')).toEqual(new Set(['RetainExceptOnCreate']));
      expect(countOf(outdir, 'AWS::ApiGateway::Account')).toBe(1);
      // Long stack and construct ids: every derived name stays within its resource's limit.
      expect(`${synth.stdout}${synth.stderr}`).not.toContain('exceeds maximum');
      for (const archive of Object.values(templates).flatMap((t) => Object.values(t.Resources ?? {}))) {
        if (archive.Type !== 'AWS::Events::Archive') continue;
        expect(String(archive.Properties?.['ArchiveName']).length).toBeLessThanOrEqual(48);
      }
      synthesised.push(outdir);
    },
    8 * MINUTES,
  );

  it(
    'synthesises the README snippet in the ESM form of the app',
    async () => {
      // Prepare
      const readme = snippets.find((s) => s.doc === 'README.md')!;
      await writeFile(appEntry(esmApp), readme.code);
      const outdir = join(esmApp, 'cdk.out');

      // Act
      const synth = await cdkSynth(esmApp, outdir, SNIPPET_CONTEXT);

      // Assess
      expect(synth.code, `${synth.stdout}\n${synth.stderr}`).toBe(0);
      expect(countOf(outdir, 'AWS::ApiGateway::Stage')).toBe(2);
      expect(countOf(outdir, 'AWS::ApiGateway::Account')).toBe(1);
    },
    8 * MINUTES,
  );

  it(
    'writes templates cfn-lint passes but for the listed schema lag (every synth above, one run)',
    async () => {
      // Prepare
      expect(await cfnLintAvailable(), CFN_LINT_MISSING).toBe(true);
      const files = synthesised.flatMap((outdir) =>
        Object.keys(templatesIn(outdir)).map((f) => join(outdir, f)),
      );

      // Act
      const { errors } = await cfnLintErrors(files);

      // Assess
      expect(synthesised.length).toBe(snippets.length + 1);
      expect(errors).toEqual([]);
    },
    8 * MINUTES,
  );

  it.each([
    ["TypeScript 7 (the app's)", 'app'],
    ['TypeScript 5.9', 'project'],
  ] as const)(
    'types the package for CommonJS and ESM with %s, skipLibCheck off',
    async (_, compiler) => {
      // Prepare
      const tsc =
        compiler === 'app'
          ? join(app, 'node_modules', 'typescript', 'bin', 'tsc')
          : join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      await writeFile(appEntry(app), TYPED_APP);
      await writeFile(appEntry(esmApp), TYPED_APP);

      // Act
      const [commonjs, esm] = await Promise.all(
        [app, esmApp].map((folder) =>
          runIn(folder, process.execPath, [tsc, '-p', '.', '--skipLibCheck', 'false']),
        ),
      );

      // Assess
      expect(commonjs!.code, commonjs!.stdout).toBe(0);
      expect(esm!.code, esm!.stdout).toBe(0);
    },
    5 * MINUTES,
  );
});

/** One pipeline per RemovalPolicy, in one app (one synth). */
const REMOVAL_POLICY_APP = `import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { IdvPipeline } from 'idv-pipeline/cdk';

const app = new App();
const policies = [
  RemovalPolicy.DESTROY,
  RemovalPolicy.RETAIN,
  RemovalPolicy.SNAPSHOT,
  RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
];
policies.forEach((removalPolicy, i) => {
  const stack = new Stack(app, \`Policy\${i + 1}PlatformAppStackWithAVeryLongNameForTesting\`);
  new IdvPipeline(stack, 'VerificationPipelineForTheWholeCompany', {
    environmentName: 'staging',
    serviceBaseUrl: 'https://verification.acme-corp.io',
    retention: Duration.days(30),
    removalPolicy,
  });
});
`;

/** Every entry of the package, typed: the client's schemas and the events' too. */
const TYPED_APP = `import { App, Duration, Stack } from 'aws-cdk-lib';
import { IdvPipeline, type IdvPipelineProps, IdvPipelineValidationError } from 'idv-pipeline/cdk';
import { IdvClient, NotFoundError } from 'idv-pipeline/client';
import { EVENT_DETAIL_SCHEMAS, type ResultStoredDetail, testEventPattern } from 'idv-pipeline/events';

const props: IdvPipelineProps = {
  environmentName: 'staging', serviceBaseUrl: 'https://s.acme-corp.io', retention: Duration.days(1),
};
const pipeline = new IdvPipeline(new Stack(new App(), 'S'), 'P', props);
export const url: string = pipeline.webhookUrlWithoutSecret;
export const schema = EVENT_DETAIL_SCHEMAS.VerificationResultStored;
export const matches: (detail: ResultStoredDetail) => boolean = (detail) =>
  testEventPattern({ detail: { result: ['APPROVED'] } }, { detail });
export { IdvClient, IdvPipelineValidationError, NotFoundError };
`;

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

const CONSUMER_APP = `
import { App, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { IdvPipeline } from 'idv-pipeline/cdk';

const app = new App({ outdir: 'cdk.out' });
const stack = new Stack(app, 'Platform');
// The platform's own resources, as a landing zone would have them.
const key = new kms.Key(stack, 'PlatformKey', { enableKeyRotation: true });
const logs = new s3.Bucket(stack, 'AccessLogs', { enforceSSL: true, encryption: s3.BucketEncryption.S3_MANAGED });
Validations.of(logs).acknowledge({ id: 'AwsSolutions-S1', reason: 'The access log bucket itself.' });
const bucket = new s3.Bucket(stack, 'ResultObjects', {
  encryptionKey: key, enforceSSL: true, versioned: true, serverAccessLogsBucket: logs,
});
const bus = new events.EventBus(stack, 'PlatformBus', { kmsKey: key });
const common = {
  serviceBaseUrl: 'https://service.example', retention: Duration.days(30), removalPolicy: RemovalPolicy.DESTROY,
};
const blue = new IdvPipeline(stack, 'Blue', {
  ...common, environmentName: 'staging', encryptionKey: key, dataBucket: bucket, eventBus: bus,
});
new IdvPipeline(stack, 'Green', { ...common, environmentName: 'green', serviceEnvironment: 'staging' });
const analysts = new iam.Role(stack, 'Analysts', { assumedBy: new iam.AccountRootPrincipal() });
blue.grantReadAnalytics(analysts);
blue.grantReadResults(analysts);
const boundary = new iam.ManagedPolicy(stack, 'Boundary', {
  statements: [new iam.PolicyStatement({ actions: ['*'], resources: ['*'] })],
});
Validations.of(boundary).acknowledge(
  { id: 'AwsSolutions-IAM5[Action::*]', reason: 'A permissions boundary, not a grant.' },
  { id: 'AwsSolutions-IAM5[Resource::*]', reason: 'A permissions boundary, not a grant.' },
);
iam.PermissionsBoundary.of(stack).apply(boundary);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
console.log('synthesised');
`;

/**
 * The tsconfig of `cdk init app --language typescript` before the CLI moved to NodeNext. ts-node reports
 * the diagnostics of the files it compiles, not of the libraries' declarations (zod's own fail without
 * `esModuleInterop`), hence `skipLibCheck` for `tsc` standing in for it.
 */
const LEGACY_TSCONFIG = {
  compilerOptions: {
    skipLibCheck: true,
    target: 'ES2020',
    module: 'commonjs',
    lib: ['es2020', 'dom'],
    declaration: true,
    strict: true,
    noImplicitAny: true,
    strictNullChecks: true,
    noImplicitReturns: true,
    inlineSourceMap: true,
    inlineSources: true,
    experimentalDecorators: true,
    strictPropertyInitialization: false,
    typeRoots: ['./node_modules/@types'],
    outDir: 'out',
  },
  files: ['app.ts'],
};

const LEGACY_APP = `
import * as cdk from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IdvPipeline, type IdvPipelineProps } from 'idv-pipeline/cdk';
import { IdvClient } from 'idv-pipeline/client';
import { EVENT_DETAIL_SCHEMAS } from 'idv-pipeline/events';

const app = new cdk.App();
const stack = new cdk.Stack(app, 'PlatformAppStack');
const props: IdvPipelineProps = {
  environmentName: 'staging',
  serviceBaseUrl: 'https://staging.service.example',
  retention: cdk.Duration.days(30),
};
const pipeline = new IdvPipeline(stack, 'Verification', props);
pipeline.grantReadResults(new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() }));
app.synth();
console.log(\`synthesised: client \${typeof IdvClient}, events \${Object.keys(EVENT_DETAIL_SCHEMAS).length}\`);
`;

const FORBID_HOOK = `
export async function resolve(specifier, context, next) {
  if (/^(aws-cdk-lib|constructs|@aws-sdk\\/)/.test(specifier)) {
    throw new Error('idv-pipeline/client loaded ' + specifier);
  }
  return next(specifier, context);
}
`;

const CLIENT_SCRIPT = `
import { IdvClient, NotFoundError, ServiceError } from 'idv-pipeline/client';
import { EVENT_DETAIL_SCHEMAS, testEventPattern } from 'idv-pipeline/events';
const client = new IdvClient({
  baseUrl: 'https://service.example', environment: 'staging', credentials: { clientId: 'a', clientSecret: 'b' },
});
console.log(JSON.stringify({
  client: typeof client.poll,
  notFound: NotFoundError.prototype instanceof ServiceError,
  schemas: Object.keys(EVENT_DETAIL_SCHEMAS).length,
  match: testEventPattern({ source: ['idv.pipeline'] }, { source: 'idv.pipeline' }),
}));
`;
