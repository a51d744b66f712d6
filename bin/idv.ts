/**
 * `idv`: command-line client of the verification service. See `bin/cli/main.ts`; run `idv --help`.
 * Both entries land here through the `bin/idv.mjs` shim (in the repository: a cached bundle of this
 * file): `npx idv` and `npm run idv`.
 */

// The AWS SDK warns on Node < 22 at its first client (`idv results …`, `idv dlq …`); a CLI user cannot act
// on that, so keep stderr clean. Set before the CLI (and with it the SDK) is loaded.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { runCli } = await import('./cli/main');
const { terminalAsk } = await import('./cli/prompt');

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  ask: terminalAsk(process.stdin, process.stderr),
});
// An answer read from stdin (`idv setup credentials`) leaves it open; nothing else will read it.
process.stdin.destroy();
// The command has answered (or failed): a handle it left open, such as a local emulator that did not stop
// within its bound (local/local-open.ts), must not keep the process waiting for ever.
setTimeout(() => process.exit(), 20_000).unref();

// A module (for top-level await) without static imports: they would load the SDK before the line above.
export {};
