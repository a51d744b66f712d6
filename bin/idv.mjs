#!/usr/bin/env node
// Entry of `npx idv` (package.json "bin"): registers tsx so the TypeScript CLI runs without a build.
import { register } from 'tsx/esm/api';

// The AWS SDK warns on Node < 22 at its first client; a CLI user cannot act on that, so keep stderr clean.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
await import('./idv.ts');
