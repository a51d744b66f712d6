#!/usr/bin/env node
// Entry of `npx idv` (package.json "bin"): registers tsx so the TypeScript CLI runs without a build.
// bin/idv.ts itself silences the AWS SDK's Node-version warning, for this entry and `npm run idv` alike.
import { register } from 'tsx/esm/api';

register();
await import('./idv.ts');
