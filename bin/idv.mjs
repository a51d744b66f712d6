#!/usr/bin/env node
// Entry of `npx idv` (package.json "bin"). In the repository it registers tsx so the TypeScript CLI runs
// without a build; in the installed package (no TypeScript sources, no tsx) it runs the compiled CLI that
// `npm run build:package` wrote to dist/cli/. bin/idv.ts itself silences the AWS SDK's Node-version
// warning, for this entry and `npm run idv` alike.
import { existsSync } from 'node:fs';

const source = new URL('./idv.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/cli/idv.mjs', import.meta.url).href);
}
