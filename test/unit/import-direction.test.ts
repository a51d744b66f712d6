import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layering of the repository (README "Repository layout"), read from the source itself:
 *
 *   entry points  bin/, bench/
 *        ↓
 *   libraries     local/, simulator/, infra/, functions/
 *        ↓
 *   core          shared/
 *
 * A folder may import from itself and from the folders its row allows; nothing imports an entry point,
 * and no two source files import each other through any chain (no cycles).
 *
 * Inside shared/ the same holds between its layers ({@link SHARED_LAYERS}, README "Inside shared/"): a
 * file imports from its own layer or a lower one, never up. And shared/ keeps only the core — what a
 * function bundles or a package export ships, or what two or more entry points use — so a file that
 * only one of the CLI, the local run, the simulator, the CDK app or the benches reaches belongs in that
 * one's folder ({@link consumersOf}).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const ALLOWED: Record<string, readonly string[]> = {
  bin: ['local', 'simulator', 'infra', 'functions', 'shared'],
  bench: ['local', 'simulator', 'infra', 'functions', 'shared'],
  local: ['shared'],
  simulator: ['shared'],
  infra: ['shared'],
  functions: ['shared'],
  shared: [],
};
const SOURCE_FOLDERS = Object.keys(ALLOWED);

/**
 * The layers of shared/, lowest first: a folder (or a top-level file) of shared/ may import only from its
 * own layer and the layers before it. A top-level file not named here is a leaf helper of layer 0.
 */
const SHARED_LAYERS: readonly (readonly string[])[] = [
  // 0: the service's API (types, enums, schemas) and leaf helpers that import nothing of the rest.
  ['api', 'errors.ts', 'scrub.ts', 'json-object.ts', 'image.ts', 'metrics-names.ts'],
  // 1: the typed client of the service (the `idv-pipeline/client` export).
  ['client'],
  // 2: what every function runs on (config, logs, traces, AWS clients, the shared token) and the decoder.
  ['config.ts', 'logger.ts', 'tracing.ts', 'aws-clients.ts', 'token-cache', 'stream'],
  // 3: the storage layout: table shapes, items, keys, the result store, erasure records.
  ['store'],
  // 4: the pipeline's events (details, publisher, schemas, the pattern engine).
  ['events'],
  // 5: what uses all of it: the pipeline steps, the operators' queries, erasure, analytics.
  ['pipeline', 'queries', 'erasure', 'analytics'],
];
const SHARED = join(ROOT, 'shared');

/** The layer group of a file under shared/: its first folder, or its own name at the top. */
function sharedGroup(file: string): string {
  return relative(SHARED, file).split('/')[0]!;
}

function sharedLayer(group: string): number | undefined {
  const layer = SHARED_LAYERS.findIndex((names) => names.includes(group));
  if (layer >= 0) return layer;
  return group.endsWith('.ts') ? 0 : undefined;
}

/** Every import inside shared/ that points to a higher layer, as `from → to`. */
function upwardImports(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([file, targets]) => {
    if (!file.startsWith(`${SHARED}/`)) return [];
    const from = sharedLayer(sharedGroup(file)) ?? -1;
    return targets
      .filter((t) => t.startsWith(`${SHARED}/`) && (sharedLayer(sharedGroup(t)) ?? Infinity) > from)
      .map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`);
  });
}

/** Who a source file outside shared/ serves (the package exports count as consumers of their own). */
function consumerOf(file: string): string | undefined {
  const path = relative(ROOT, file);
  if (path === 'shared/client/index.ts') return 'the client export';
  if (path === 'shared/events/index.ts') return 'the events export';
  if (path.startsWith('shared/')) return undefined;
  if (path === 'bin/app.ts') return 'infra';
  if (path === 'bin/start.ts') return 'local';
  if (path.startsWith('bin/')) return 'cli';
  return topFolder(file);
}

/** For each file under shared/, who reaches it through any chain of imports. */
function consumersOf(graph: Map<string, string[]>): Map<string, Set<string>> {
  const reached = new Map<string, Set<string>>();
  for (const file of graph.keys()) {
    const consumer = consumerOf(file);
    if (!consumer) continue;
    const seen = new Set<string>();
    const stack = [...(graph.get(file) ?? [])];
    while (stack.length > 0) {
      const target = stack.pop()!;
      if (seen.has(target) || !target.startsWith(`${SHARED}/`)) continue;
      seen.add(target);
      stack.push(...(graph.get(target) ?? []));
    }
    for (const target of seen) {
      if (!reached.has(target)) reached.set(target, new Set());
      reached.get(target)!.add(consumer);
    }
  }
  return reached;
}

/** Consumers that make a file core on their own: a function bundles it, or a package export ships it. */
const CORE_CONSUMERS = ['functions', 'the client export', 'the events export'];

/** The files of shared/ that neither a core consumer nor two entry points use, each with its one user. */
function notCore(graph: Map<string, string[]>): string[] {
  const consumers = consumersOf(graph);
  return [...graph.keys()]
    .filter((file) => file.startsWith(`${SHARED}/`) && !consumerOf(file))
    .flatMap((file) => {
      const users = [...(consumers.get(file) ?? [])];
      const core = users.some((u) => CORE_CONSUMERS.includes(u)) || users.length >= 2;
      return core ? [] : [`${relative(ROOT, file)} (used by ${users.join(', ') || 'nothing but tests'})`];
    });
}
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'node_modules' || name === 'results' ? [] : sourceFiles(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names (`./x` → `./x.ts` or `./x/index.ts`), or the specifier's path. */
function resolveImport(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return base;
}

function topFolder(path: string): string {
  return relative(ROOT, path).split('/')[0]!;
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of SOURCE_FOLDERS) {
    for (const file of sourceFiles(join(ROOT, folder))) {
      const text = readFileSync(file, 'utf8');
      graph.set(
        file,
        [...text.matchAll(IMPORT)].map((m) => resolveImport(file, m[1]!)),
      );
    }
  }
  return graph;
}

/** Every import cycle, each as the chain of files (relative to the root) that closes it. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (state.get(target) === 'visiting') {
        cycles.push([...stack.slice(stack.indexOf(target)), target].map((f) => relative(ROOT, f)));
      } else if (!state.has(target)) {
        visit(target);
      }
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('import direction', () => {
  const graph = importGraph();

  it('reads the imports of every source folder', () => {
    // Prepare / Act: the graph above. Assess: a folder that vanished would make the other checks vacuous.
    const folders = new Set([...graph.keys()].map(topFolder));
    expect([...folders].sort()).toEqual([...SOURCE_FOLDERS].sort());
    expect([...graph.values()].flat().length).toBeGreaterThan(100);
  });

  it('points from entry points to libraries to the core, never back', () => {
    const wrong = [...graph].flatMap(([file, targets]) => {
      const from = topFolder(file);
      return targets
        .map((target) => ({ target, to: topFolder(target) }))
        .filter(({ to }) => to !== from && !ALLOWED[from]!.includes(to))
        .map(({ target }) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`);
    });
    expect(wrong).toEqual([]);
  });

  it('keeps the stream parser free of the storage layout (shared/stream imports nothing from shared/store)', () => {
    const stream = join(ROOT, 'shared/stream/');
    const store = join(ROOT, 'shared/store/');
    const wrong = [...graph]
      .filter(([file]) => file.startsWith(stream))
      .flatMap(([file, targets]) =>
        targets
          .filter((t) => t.startsWith(store))
          .map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`),
      );
    expect(wrong).toEqual([]);
  });

  it('keeps shared/ free of every other folder (bin, local, infra, functions, simulator, bench)', () => {
    const wrong = [...graph]
      .filter(([file]) => topFolder(file) === 'shared')
      .flatMap(([file, targets]) =>
        targets
          .filter((t) => ['bin', 'local', 'infra', 'functions', 'simulator', 'bench'].includes(topFolder(t)))
          .map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`),
      );
    expect(wrong).toEqual([]);
  });

  it('gives every folder of shared/ a layer', () => {
    const groups = new Set([...graph.keys()].filter((f) => f.startsWith(`${SHARED}/`)).map(sharedGroup));
    expect([...groups].filter((g) => sharedLayer(g) === undefined)).toEqual([]);
  });

  it('points down the layers inside shared/, never up (e.g. shared/client never imports shared/pipeline)', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('keeps in shared/ only the core: what a function or a package export uses, or two entry points', () => {
    expect(notCore(graph)).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('finds a cycle and a wrong direction when there is one', () => {
    // The checks themselves, on a made-up graph: a ↔ b is a cycle.
    const a = join(ROOT, 'shared/a.ts');
    const b = join(ROOT, 'shared/b.ts');
    expect(
      findCycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['shared/a.ts', 'shared/b.ts', 'shared/a.ts']]);
    expect(ALLOWED.shared).not.toContain('bin');
    expect(ALLOWED.local).not.toContain('bin');
  });

  it('finds an upward import and a file only one entry point uses when there is one', () => {
    // The checks themselves, on a made-up graph: the client importing the pipeline is upward, and a
    // shared file that only the CLI reaches is not core; one that a function reaches is.
    const client = join(ROOT, 'shared/client/x.ts');
    const pipeline = join(ROOT, 'shared/pipeline/y.ts');
    const cliOnly = join(ROOT, 'shared/queries/z.ts');
    const made = new Map([
      [client, [pipeline]],
      [pipeline, []],
      [cliOnly, []],
      [join(ROOT, 'bin/cli/main.ts'), [cliOnly]],
      [join(ROOT, 'functions/poll/handler.ts'), [pipeline]],
    ]);
    expect(upwardImports(made)).toEqual(['shared/client/x.ts → shared/pipeline/y.ts']);
    expect(notCore(made)).toEqual([
      'shared/client/x.ts (used by nothing but tests)',
      'shared/queries/z.ts (used by cli)',
    ]);
  });
});
