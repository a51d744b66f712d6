/** Parsed flag values, as `node:util` `parseArgs` returns them. */
export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;
