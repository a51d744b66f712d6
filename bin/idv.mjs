#!/usr/bin/env node
// Entry of `npx idv` (package.json "bin"): registers tsx so the TypeScript CLI runs without a build.
import { register } from 'tsx/esm/api';

register();
await import('./idv.ts');
