/**
 * Helpers that turn parsed flags into request fields, with usage errors naming the flag.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { closest } from '../../shared/args';
import { UsageError } from './errors';
import type { CommandContext } from './types';

/** A string flag's value, or `undefined`. */
export function str(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A required string flag's value; a usage error naming the flag when missing. */
export function required(ctx: CommandContext, name: string, command: string): string {
  const value = str(ctx, name);
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`, command);
  return value;
}

/** A repeatable flag's values (empty when absent). */
export function list(ctx: CommandContext, name: string): string[] {
  const value = ctx.values[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** `true` when a boolean flag is given, else `undefined` (so the field is left out of the request). */
export function flag(ctx: CommandContext, name: string): true | undefined {
  return ctx.values[name] === true ? true : undefined;
}

/** A whole number flag, or `undefined`. */
export function int(ctx: CommandContext, name: string, command: string): number | undefined {
  const value = str(ctx, name);
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`--${name} must be a whole number`, command);
  return Number(value);
}

/**
 * A flag that must be one of `allowed` (`undefined` when absent); a usage error listing them and naming the
 * closest when it is not. Filters compare exactly, so a typo would otherwise answer `[]` as if nothing
 * matched, and a request would be refused only after the token request.
 */
export function oneOf<T extends string>(
  ctx: CommandContext,
  flag: string,
  allowed: readonly T[],
  command: string,
): T | undefined {
  const value = str(ctx, flag);
  if (value === undefined) return undefined;
  return checkedValue(value, `--${flag}`, allowed, command);
}

/** `value` when it is one of `allowed`, else a usage error naming `what` and the closest allowed value. */
export function checkedValue<T extends string>(
  value: string,
  what: string,
  allowed: readonly T[],
  command: string,
): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const guess = closest(value.toUpperCase(), allowed) ?? closest(value, allowed);
  throw new UsageError(
    `${what} must be one of ${allowed.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`,
    command,
  );
}

/** Reads a file named on the command line; the error names the flag, not the content. */
export async function readInput(ctx: CommandContext, path: string, flagName: string): Promise<Buffer> {
  try {
    return await readFile(resolve(ctx.io.cwd, path));
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code ? `${FILE_ERROR_TEXT[code] ?? 'cannot be read'} (${code})` : 'cannot be read';
    throw new UsageError(`cannot read the file of --${flagName} ${path}: ${why}`);
  }
}

const FILE_ERROR_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
};

/** Drops `undefined` fields so strict request schemas see only what the user gave. */
export function compact<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;
}
