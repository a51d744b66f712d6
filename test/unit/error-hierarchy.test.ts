import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One error hierarchy in the core: every error class of shared/ extends `PipelineError` (shared/errors.ts),
 * or — for what the service answered — the service client's `IdvError` (shared/client/errors.ts), and
 * nothing throws a bare `Error`, so a caller can tell the pipeline's own refusals from a bug.
 */
const SHARED = resolve(import.meta.dirname, '../../shared');

const ROOTS = ['PipelineError', 'IdvError'];

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the core’s errors', () => {
  const files = sources(SHARED).map((file) => ({
    file: relative(SHARED, file),
    text: readFileSync(file, 'utf8'),
  }));

  it('are all PipelineErrors', () => {
    // Prepare: every class that extends something whose name ends in Error, and what it extends.
    const classes = new Map<string, string>();
    for (const { text } of files) {
      for (const [, name, base] of text.matchAll(/class (\w+) extends (\w*Error)\b/g))
        classes.set(name!, base!);
    }

    // Assess
    expect(classes.size).toBeGreaterThan(10);
    const offRoot = [...classes.keys()].filter((name) => !ROOTS.includes(name) && !hasRoot(name, classes));
    expect(offRoot, 'error classes of shared/ outside the two hierarchies').toEqual([]);
  });

  it('never throw a bare Error', () => {
    // Assess
    // The client's http.ts throws one inside its read loop, caught on the next line and wrapped in a
    // ConnectionError: it never leaves the client.
    const bare = files
      .filter(({ file, text }) => file !== 'client/http.ts' && /throw new Error\(/.test(text))
      .map(({ file }) => file);
    expect(bare).toEqual([]);
  });
});

function hasRoot(name: string, classes: Map<string, string>): boolean {
  for (let current: string | undefined = name; current !== undefined; current = classes.get(current)) {
    if (ROOTS.includes(current)) return true;
  }
  return false;
}
