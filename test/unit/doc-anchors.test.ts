/**
 * Every place in the docs the code points a person at exists: each `docs/X.md#anchor` in the code (the
 * pipeline's log lines, the CLI, the start screen) and each `docs/X.md, "Heading"` in the CLI and the
 * start screen names a heading of that document (GitHub's anchors: lowercase, punctuation dropped,
 * spaces to hyphens).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = ['bin', 'local', 'shared', 'functions', 'simulator'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(doc: string): Set<string> {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

describe('doc anchors the code prints', () => {
  it('each names a heading of its document', () => {
    // Prepare
    const pointers: { where: string; doc: string; anchor: string }[] = [];
    for (const file of SOURCES.flatMap((d) => files(join(ROOT, d)))) {
      const text = readFileSync(file, 'utf8');
      const where = file.slice(ROOT.length + 1);
      for (const m of text.matchAll(/(docs\/[a-z-]+\.md)#([a-z0-9-]+)/g)) {
        pointers.push({ where, doc: m[1]!, anchor: m[2]! });
      }
      // The quoted-heading form in what the CLI and the start screen print (and their comments).
      if (!/^(bin|local)\//.test(where)) continue;
      for (const m of text.matchAll(/(docs\/[a-z-]+\.md), "([^"]+)"/g)) {
        pointers.push({ where, doc: m[1]!, anchor: slug(m[2]!) });
      }
    }

    // Act
    const missing = pointers.filter((p) => !anchorsOf(p.doc).has(p.anchor));

    // Assess
    expect(pointers.map((p) => p.anchor)).toContain('dlq-runbook');
    expect(missing.map((p) => `${p.where}: ${p.doc}#${p.anchor}`)).toEqual([]);
  });
});
