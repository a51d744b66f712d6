/**
 * The shell recipes of the documentation (README.md, docs/*.md and every other Markdown file of the
 * repository): each command of a fenced `sh` block, and its class: run offline by
 * test/integration/docs-recipes.test.ts (an `idv` command, `npm start`, the simulator, `curl` to the local
 * run, …), checked without running (a benchmark's flags), or not offline, with the reason. A command no rule
 * names is unclassified, and test/unit/doc-recipes.test.ts fails on it: a new recipe is either run or
 * explicitly excused, so the docs cannot rot silently.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './run-process';

/** One command of a recipe: continuation lines joined, its trailing comment apart. */
export interface RecipeCommand {
  /** Repository path of the Markdown file. */
  readonly file: string;
  /** 1-based line of the command's first line in that file. */
  readonly line: number;
  /** The command as a shell reads it, without the trailing comment. */
  readonly text: string;
  /** The trailing `# comment`, without the `#` (empty when none). */
  readonly comment: string;
}

/** One fenced shell block. */
export interface RecipeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly commands: readonly RecipeCommand[];
}

/** How the integration test runs a command (see test/integration/docs-recipes.test.ts). */
export type Runner =
  /** `npx idv …`, in this process through the CLI's `runCli`, with the session's variables. */
  | 'idv'
  /** `npm start …`, the real process, with `--data-dir` in a temporary directory and `--port 0` added. */
  | 'npm-start'
  /** `npm run simulator …`, the real process on a free port; 4010 in later commands becomes its port. */
  | 'simulator'
  /** `export NAME=value …`: variables of the session (the reader's terminal). */
  | 'export'
  /** A plain shell line (`curl`, `S=$(node -p …)`), through bash, with the session's variables. */
  | 'shell';

/** What happens to a command in the tests. */
export type Classification =
  | { readonly kind: 'run'; readonly runner: Runner }
  /** A benchmark: its flags are parsed by the bench's own parser, it is not run (minutes of CPU). */
  | { readonly kind: 'bench-flags' }
  | { readonly kind: 'not-offline'; readonly reason: string }
  | { readonly kind: 'unclassified' };

interface NotOfflineRule {
  readonly pattern: RegExp;
  readonly reason: string;
}

/**
 * Commands that cannot run offline on this machine, each with its reason. Checked before the runnable
 * patterns: an `idv` command with `--stack` is an AWS command, not a local one.
 */
export const NOT_OFFLINE: readonly NotOfflineRule[] = [
  { pattern: /^npm ci$/, reason: 'installs from the package registry (this checkout is installed)' },
  { pattern: /^npm install\b/, reason: 'installs from the package registry' },
  { pattern: /^cd \.\.\//, reason: 'another project beside this checkout (docs/construct.md)' },
  { pattern: /^npm test$/, reason: 'the whole suite, which runs this test' },
  {
    pattern: /^npm pack$/,
    reason:
      'builds the package (about a minute); test/integration/package-install.test.ts packs and installs it',
  },
  { pattern: /^npx cdk\b/, reason: 'deploys to, or diffs against, an AWS account' },
  { pattern: /^cdk bootstrap\b/, reason: 'bootstraps an AWS account for CDK deployments' },
  { pattern: /^npm run integ$/, reason: 'deploys the integration suite to an AWS account and destroys it' },
  { pattern: /^export CDK_DISABLE_VERSION_CHECK=/, reason: 'part of a CDK deployment recipe' },
  { pattern: /^aws\b/, reason: 'an AWS CLI call: needs an AWS account' },
  { pattern: /^export AWS_PROFILE=/, reason: 'an AWS SSO profile: needs an AWS account' },
  { pattern: /^[A-Z]+=\$\(aws\b/, reason: 'reads a value from an AWS account' },
  { pattern: /^echo ".*\$\{(BASE|SECRET)\}/, reason: 'prints values read from an AWS account' },
  { pattern: /^jq .*cdk-outputs/, reason: "reads a deployment's outputs file (cdk deploy --outputs-file)" },
  {
    pattern: /^npx (?:--no-install )?idv\b.*(--stack|--outputs-file|--workgroup)\b/,
    reason: 'an idv command on a deployed stack: needs an AWS account',
  },
  {
    pattern: /^npx (?:--no-install )?idv events replay\b(?!.*--local)/,
    reason: "replays a deployed bus's archive: needs an AWS account",
  },
  { pattern: /--service-url https:\/\//, reason: "a real staging service and its client's credentials" },
  { pattern: /^export IDV_CLIENT_ID=your-client-id$/, reason: "a real staging client's id" },
  {
    pattern: /IDV_CLIENT_ID=<client id> IDV_CLIENT_SECRET=<client secret>/,
    reason: 'the credentials a running npm start printed: each run draws its own',
  },
  {
    pattern: /^(printf|read)\b.*(stty|read -r)/,
    reason: 'interactive: reads the client secret from the terminal',
  },
  { pattern: /^read -rsp\b/, reason: 'interactive: reads the client secret from the terminal' },
  { pattern: /^export IDV_CLIENT_SECRET$/, reason: 'exports the client secret read from the terminal' },
  {
    pattern: /^npx tsx bench\/local-run\.ts\b/,
    reason: 'a local run against a 200 MB result: minutes (docs/benchmarks.md)',
  },
];

/** Commands the integration test runs, by their first words (after any `NAME=value` assignments). */
const RUNNABLE: readonly { readonly pattern: RegExp; readonly runner: Runner }[] = [
  { pattern: /^npx (?:--no-install )?idv\b/, runner: 'idv' },
  { pattern: /^npm start\b/, runner: 'npm-start' },
  { pattern: /^npm run simulator\b/, runner: 'simulator' },
  { pattern: /^export [A-Z_]+=\S+( [A-Z_]+=\S+)*$/, runner: 'export' },
  { pattern: /^curl\b/, runner: 'shell' },
  { pattern: /^[A-Z]+=\$\(node -p\b/, runner: 'shell' },
];

/** Benchmarks: their flags are checked by the bench's parser (test/unit/doc-recipes.test.ts), never run. */
const BENCH = /^(npm run bench\b|npx tsx bench\/(fetch-result|bundles|cli-start)\.ts\b)/;

/** Leading `NAME=value` assignments of a command (`IDV_BASE_URL=… npx idv …`). */
const ASSIGNMENTS = /^(?:[A-Z_][A-Z0-9_]*=(?:"[^"]*"|'[^']*'|(?!\$\()\S+)\s+)+/;

/** The command without its leading `NAME=value` assignments. */
export function withoutAssignments(text: string): string {
  return text.replace(ASSIGNMENTS, '');
}

/** The class of one command (one part of an `a && b` list). */
export function classify(text: string): Classification {
  for (const rule of NOT_OFFLINE) {
    if (rule.pattern.test(text)) return { kind: 'not-offline', reason: rule.reason };
  }
  const command = withoutAssignments(text);
  for (const rule of NOT_OFFLINE) {
    if (rule.pattern.test(command)) return { kind: 'not-offline', reason: rule.reason };
  }
  if (BENCH.test(command)) return { kind: 'bench-flags' };
  for (const rule of RUNNABLE) {
    if (rule.pattern.test(command)) return { kind: 'run', runner: rule.runner };
  }
  return { kind: 'unclassified' };
}

/** The parts of an `a && b` list (`&&` outside quotes), each classified on its own. */
export function commandParts(text: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (text.startsWith(' && ', i)) {
      parts.push(text.slice(start, i).trim());
      start = i + 4;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** Markdown files of the repository (not node_modules, build output or local data). */
export function markdownFiles(root = ROOT): string[] {
  const skip = new Set(['node_modules', 'dist', 'cdk.out', '.git', '.local', 'coverage']);
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (skip.has(entry.name) || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(relative(root, path));
    }
  };
  walk(root);
  return found.sort();
}

const SHELL_FENCE = /^\s*```(sh|bash|shell|console)\s*$/;
const CLOSING_FENCE = /^\s*```\s*$/;

/** The fenced shell blocks of one Markdown file. */
export function recipeBlocks(file: string, root = ROOT): RecipeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: RecipeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!SHELL_FENCE.test(lines[i]!)) continue;
    const start = i;
    const body: { line: number; text: string }[] = [];
    for (i++; i < lines.length && !CLOSING_FENCE.test(lines[i]!); i++)
      body.push({ line: i + 1, text: lines[i]! });
    blocks.push({ file, line: start + 1, commands: commandsOf(file, body) });
  }
  return blocks;
}

/** Every fenced shell block of the repository's Markdown files, in file order. */
export function allRecipeBlocks(root = ROOT): RecipeBlock[] {
  return markdownFiles(root).flatMap((file) => recipeBlocks(file, root));
}

/** Joins continuation lines, drops comment-only and blank lines, and splits off trailing comments. */
function commandsOf(file: string, body: readonly { line: number; text: string }[]): RecipeCommand[] {
  const commands: RecipeCommand[] = [];
  let pending: { line: number; text: string; comment: string } | undefined;
  for (const { line, text } of body) {
    const { code, comment } = splitComment(text);
    const trimmed = code.trim();
    if (!pending && trimmed === '') continue;
    const continues = trimmed.endsWith('\\');
    const part = continues ? trimmed.slice(0, -1).trim() : trimmed;
    pending = pending
      ? {
          line: pending.line,
          text: `${pending.text} ${part}`,
          comment: [pending.comment, comment].filter(Boolean).join(' '),
        }
      : { line, text: part, comment };
    if (!continues) {
      commands.push({ file, line: pending.line, text: pending.text, comment: pending.comment });
      pending = undefined;
    }
  }
  if (pending) commands.push({ file, line: pending.line, text: pending.text, comment: pending.comment });
  return commands;
}

/** Splits `code # comment` at the first `#` outside quotes that starts a word. */
export function splitComment(text: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      return { code: text.slice(0, i).trimEnd(), comment: text.slice(i + 1).trim() };
    }
  }
  return { code: text, comment: '' };
}

/** Drops the optional parts of a synopsis (`[--since DATE]`), which a reader leaves out or fills in. */
export function withoutOptionalParts(text: string): string {
  return text.replace(/\s*\[[^\]]*\]/g, '');
}

/**
 * Splits a command into words as a shell does for these recipes: single and double quotes, `$NAME` and
 * `${NAME}` expanded from `env` outside single quotes. No globbing, no command substitution.
 */
export function shellWords(text: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const add = (s: string) => {
    word = (word ?? '') + s;
  };
  const expand = (at: number): [string, number] => {
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(text.slice(at));
    const plain = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(at));
    const match = braced ?? plain;
    if (!match) return ['$', at + 1];
    return [env[match[1]!] ?? '', at + match[0].length];
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${text}`);
      add(text.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      add('');
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) {
          add(text[i + 1]!);
          i += 2;
        } else if (text[i] === '$') {
          const [value, next] = expand(i);
          add(value);
          i = next;
        } else {
          add(text[i]!);
          i++;
        }
      }
      if (i >= text.length) throw new Error(`unterminated " in: ${text}`);
      i++;
    } else if (c === '$') {
      const [value, next] = expand(i);
      add(value);
      i = next;
    } else if (c === '\\' && i + 1 < text.length) {
      add(text[i + 1]!);
      i += 2;
    } else {
      add(c);
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
