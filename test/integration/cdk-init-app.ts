/**
 * The platform team's app as the test harness: the app `cdk init app --language typescript` generates
 * (its package.json, tsconfig.json and cdk.json with every feature flag, written by this project's CDK
 * CLI), installed once with `npm install` and the packed tarball, and synthesised through the CDK CLI
 * (`cdk synth`, which runs the app command of its cdk.json: `npx tsc && npx tsx bin/<name>.ts`). The
 * documented snippets that compose the construct are read from the Markdown and run there as written.
 */
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../infra/bundling/lambda-bundling';

const run = promisify(execFile);
const MINUTES = 60_000;

/** What a command printed and how it ended; never throws. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The machine's network settings, which `npm install` needs (a proxy and its CA certificates): the only
 * variables passed on besides PATH and HOME, so no AWS credentials or test settings reach the app.
 */
function networkEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        /(^|_)(CA_CERTS|CA_BUNDLE|CERT_FILE|CERT_DIR|PROXY)$|^npm_config_(registry|cafile|proxy|https_proxy|noproxy)$/i.test(
          entry[0],
        ),
    ),
  );
}

/** Runs `command` in `cwd` with a clean environment (PATH, HOME, the network's and `env`); never throws. */
export async function runIn(
  cwd: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        ...networkEnvironment(),
        CDK_DISABLE_VERSION_CHECK: '1',
        CDK_DISABLE_CLI_TELEMETRY: 'true',
        ...env,
      },
      timeout: 8 * MINUTES,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? String(error),
    };
  }
}

/** `cdk init app --language typescript` (files only) in a new folder `name` under `parent`. */
export async function generateApp(parent: string, name: string): Promise<string> {
  const folder = join(parent, name);
  await mkdir(folder, { recursive: true });
  const init = await runIn(folder, process.execPath, [
    join(PROJECT_ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk'),
    'init',
    'app',
    '--language',
    'typescript',
    '--generate-only',
  ]);
  if (init.code !== 0) throw new Error(`cdk init failed: ${init.stderr}`);
  return folder;
}

/**
 * The generated app as an ESM app: `"type": "module"` and `.js` on its relative imports (NodeNext wants
 * them in ESM), sharing `node_modules` with the CommonJS app it was copied from (one install per run).
 */
export function esmCopyOf(app: string, folder: string): string {
  cpSync(app, folder, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|cdk\.out[^/\\]*)$/.test(source),
  });
  symlinkSync(join(app, 'node_modules'), join(folder, 'node_modules'));
  const manifestFile = join(folder, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, type: 'module' }, null, 2)}\n`);
  for (const sub of ['bin', 'lib', 'test']) {
    for (const file of readdirSync(join(folder, sub)).filter((f) => f.endsWith('.ts'))) {
      const path = join(folder, sub, file);
      writeFileSync(path, readFileSync(path, 'utf8').replace(/(from\s+')(\.{1,2}\/[^']+?)(')/g, '$1$2.js$3'));
    }
  }
  return folder;
}

/** The app's entry (`bin/<name>.ts`, the file its cdk.json's `app` command runs). */
export function appEntry(app: string): string {
  const cdkJson = JSON.parse(readFileSync(join(app, 'cdk.json'), 'utf8')) as { app: string };
  const entry = /bin\/[^\s]+\.ts/.exec(cdkJson.app)?.[0];
  if (entry === undefined) throw new Error(`no bin/<name>.ts in the app command: ${cdkJson.app}`);
  return join(app, entry);
}

/** `cdk synth` through the app's own CDK CLI, templates into `outdir`. */
export function cdkSynth(app: string, outdir: string, context: Record<string, string> = {}): Promise<Ran> {
  return runIn(app, process.execPath, [
    join(app, 'node_modules', 'aws-cdk', 'bin', 'cdk'),
    'synth',
    '--quiet',
    '--no-notices',
    '--output',
    outdir,
    ...Object.entries(context).flatMap(([key, value]) => ['--context', `${key}=${value}`]),
  ]);
}

/** A CloudFormation resource as synthesised. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

/** Every template file of a cloud assembly (nested stacks included), by file name. */
export function templatesIn(outdir: string): Record<string, { Resources?: Record<string, CfnResource> }> {
  return Object.fromEntries(
    readdirSync(outdir)
      .filter((f) => f.endsWith('.template.json'))
      .map((f) => [f, JSON.parse(readFileSync(join(outdir, f), 'utf8'))]),
  );
}

/** A TypeScript snippet of a document that composes `IdvPipeline`. */
export interface DocSnippet {
  /** The document, relative to the repository. */
  readonly doc: string;
  /** Line of the opening fence. */
  readonly line: number;
  /** The code, as written. */
  readonly code: string;
  /** The packages of the document's install line (`npm install … idv-pipeline-<v>.tgz …`). */
  readonly installs: readonly string[];
}

/** The documents whose construct snippets run in the generated app. */
export const SNIPPET_DOCS = ['README.md', 'docs/construct.md', 'docs/deploy.md'] as const;

/** The install line of a document: the packages it names, the tarball as `idv-pipeline`. */
export function installLineOf(markdown: string): string[] {
  const line = /npm install ([^`\n]*idv-pipeline-[\w.-]*\.tgz[^`\n#]*)/.exec(markdown)?.[1];
  if (line === undefined) return [];
  return line
    .trim()
    .split(/\s+/)
    .filter((word) => !word.startsWith('-'))
    .map((word) => (word.endsWith('.tgz') ? 'idv-pipeline' : word));
}

/** Every ```ts block of the documents that composes the construct (`new IdvPipeline(`). */
export function docSnippets(): DocSnippet[] {
  return SNIPPET_DOCS.flatMap((doc) => {
    const markdown = readFileSync(join(PROJECT_ROOT, doc), 'utf8');
    const installs = installLineOf(markdown);
    const snippets: DocSnippet[] = [];
    const fence = /^```(ts|typescript)\n([\s\S]*?)^```$/gm;
    for (let match = fence.exec(markdown); match !== null; match = fence.exec(markdown)) {
      const code = match[2]!;
      if (!code.includes('new IdvPipeline(')) continue;
      const line = markdown.slice(0, match.index).split('\n').length;
      snippets.push({ doc, line, code, installs });
    }
    return snippets;
  });
}

/** The packages `code` imports (`aws-cdk-lib/aws-s3` → `aws-cdk-lib`, `@scope/name/x` → `@scope/name`). */
export function importedPackages(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:from\s+|import\s+|require\()\s*['"]([^'"./][^'"]*)['"]/g)) {
    const specifier = match[1]!;
    if (specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    found.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return [...found].sort();
}
