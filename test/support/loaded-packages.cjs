// Preload (`node -r`) of test/integration/cli-entries.test.ts: on exit, writes to stderr one line
// `LOADED-PACKAGES <json>`, the packages under node_modules that were require()d (CommonJS) or whose
// files were loaded, as their names. What a command loads is a property of the process, not a timing.
const Module = require('node:module');
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain, ...rest) {
  try {
    const file = Module._resolveFilename(request, parent, isMain);
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match && !file.includes('/.cache/')) seen.add(match[1]);
  } catch {
    // A request that does not resolve fails in the real load below.
  }
  return load.call(this, request, parent, isMain, ...rest);
};
process.on('exit', () => process.stderr.write(`LOADED-PACKAGES ${JSON.stringify([...seen].sort())}\n`));
