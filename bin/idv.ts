/**
 * `idv`: command-line client of the verification service. See `bin/cli/main.ts`; run `idv --help`.
 */
import { runCli } from './cli/main';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
});
