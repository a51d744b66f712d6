/**
 * Local EventBridge rules for `npm start -- --rule FILE.json`: every event the local bus accepts is matched
 * against each rule (the same matcher as `idv events test-pattern`), and a matching event is appended to
 * `<data-dir>/rules/<rule name>.jsonl` — what a rule's target would have received.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { parseRuleDocument, type RuleDocument, RuleDocumentError } from '../shared/events/rule-document';

/** A rule loaded from a file. */
export interface LocalRule extends RuleDocument {
  /** Where matching events are appended. */
  readonly outputFile: string;
}

/**
 * Reads and validates every rule file (relative to `cwd`); names default to the file's base name and
 * must be unique. Throws {@link RuleDocumentError} naming the file before anything runs.
 */
export function loadRuleFiles(files: readonly string[], dataDir: string, cwd = process.cwd()): LocalRule[] {
  const rules: LocalRule[] = [];
  for (const file of files) {
    const path = resolve(cwd, file);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new RuleDocumentError(
        `--rule ${file}: ${code === 'ENOENT' ? 'no such file' : code ? `cannot be read (${code})` : 'not valid JSON'}`,
      );
    }
    const rule = parseRuleDocument(value, basename(file, extname(file)), `--rule ${file}`);
    if (rules.some((other) => other.name === rule.name)) {
      throw new RuleDocumentError(
        `--rule ${file}: a second rule named "${rule.name}" (give one a different "Name")`,
      );
    }
    rules.push({ ...rule, outputFile: join(resolve(dataDir), 'rules', `${rule.name}.jsonl`) });
  }
  return rules;
}

/** The rules of one run, applied to every event; counts matches per rule. */
export class LocalRuleSet {
  readonly rules: readonly LocalRule[];
  readonly #counts = new Map<string, number>();

  constructor(rules: readonly LocalRule[]) {
    this.rules = rules;
    for (const rule of rules) this.#counts.set(rule.name, 0);
    if (rules.length > 0) mkdirSync(join(rules[0]!.outputFile, '..'), { recursive: true });
  }

  /** Names of the rules `event` matches; the event is appended to each one's file. */
  apply(event: unknown): string[] {
    const matched: string[] = [];
    for (const rule of this.rules) {
      if (!rule.pattern.matches(event)) continue;
      appendFileSync(rule.outputFile, `${JSON.stringify(event)}\n`, { mode: 0o600 });
      this.#counts.set(rule.name, (this.#counts.get(rule.name) ?? 0) + 1);
      matched.push(rule.name);
    }
    return matched;
  }

  /** Matches per rule name (every rule listed, 0 when none matched). */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }
}

/** The suffix of an event line naming the rules it matched (`  → disapproved, rtw`), empty for none. */
export function ruleMarks(matched: readonly string[]): string {
  return matched.length > 0 ? `  → ${matched.join(', ')}` : '';
}
