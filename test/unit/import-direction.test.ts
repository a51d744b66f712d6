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
});
