/**
 * What a careful user of a shared machine expects of the local run's small promises (docs/local-run.md):
 * files a `--local` command creates are owner-only whatever the umask; the socket directory a SIGKILLed
 * run left in the temporary directory goes at the next start; a run that is alive but stopped (SIGSTOP,
 * Ctrl-Z) is reported as not answering within seconds, not after the SDK's retries; and a redrive with
 * nothing to redrive fails with a message.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startLocalAws } from '../../local/local-aws';
import { RUN_ANSWER_MS } from '../../local/local-open';
import { processStartTime } from '../../local/owner-only';
import { createPipelineResources } from '../../local/pipeline-resources';
import { SOCKET_DIR_PREFIX } from '../../local/socket-dirs';
import { STACK_FILE } from '../../local/stack-file';
import { runIdv } from '../support/cli';
import { ROOT } from '../support/run-process';

const dataDir = mkdtempSync(join(tmpdir(), 'idv-hygiene-'));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Spawns `node --import tsx -e code`; resolves with the child and the first line it prints. */
async function child(code: string): Promise<{ child: ChildProcess; line: string }> {
  const started = spawn(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(started);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    started.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    started.on('exit', (status) => reject(new Error(`child ended early (${status})`)));
  });
  return { child: started, line };
}

/** Every file and directory under `dir` whose mode lets anyone but the owner in. */
function openToOthers(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !statSync(path).isSymbolicLink?.() && (statSync(path).mode & 0o077) !== 0);
}

describe('the local run and its neighbours', () => {
  it('a --local command started with umask 022 leaves only owner-only files', async () => {
    // Prepare: local data, as `npm start` leaves it.
    const aws = await startLocalAws({ dataDir });
    await createPipelineResources(aws);
    await aws.close();

    // Act: a command that starts the emulators itself, under a permissive umask.
    const listed = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const run = spawn(
        'sh',
        [
          '-c',
          `umask 022 && exec "${process.execPath}" bin/idv.mjs results list --local --data-dir "${dataDir}"`,
        ],
        { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let err = '';
      run.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      run.on('exit', (code) => resolve({ code, err }));
    });

    // Assess
    expect(listed.code, listed.err).toBe(0);
    expect(openToOthers(dataDir)).toEqual([]);
  }, 120_000);

  it('removes the socket directory of a run killed with SIGKILL at the next start', async () => {
    // Prepare: emulators in a child, killed without a chance to clean up.
    const { child: killed } = await child(
      "import('./local/local-aws.ts').then(({ startLocalAws }) => startLocalAws()).then(() => console.log('ready'))",
    );
    const left = readdirSync(tmpdir())
      .filter((name) => name.startsWith(`${SOCKET_DIR_PREFIX}${killed.pid}-`))
      .map((name) => join(tmpdir(), name));
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('exit', resolve));

    // Act
    const aws = await startLocalAws();
    await aws.close();

    // Assess
    expect(left).toHaveLength(1);
    expect(existsSync(left[0]!)).toBe(false);
  }, 120_000);

  it('reports a stopped run as not answering, naming its pid, within seconds', async () => {
    // Prepare: a "run" that accepts connections and is then stopped (SIGSTOP), named by the stack file.
    const { child: stopped, line } = await child(
      "require('node:net').createServer(() => {}).listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
    );
    const url = `http://127.0.0.1:${line.trim()}`;
    writeFileSync(
      join(dataDir, STACK_FILE),
      JSON.stringify({
        pid: stopped.pid,
        pidStartTime: processStartTime(stopped.pid!),
        startedAt: new Date().toISOString(),
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIDSTOPPED', secretAccessKey: 'stopped' },
        endpoints: { dynamodb: url, s3: url, sqs: url, secretsManager: url, eventBridge: url },
        resources: { tableName: 't', bucketName: 'b', queueUrl: url, dlqUrl: url, eventBusName: 'e' },
      }),
      { mode: 0o600 },
    );
    stopped.kill('SIGSTOP');

    // Act
    const started = Date.now();
    const listed = await runIdv(['results', 'list', '--local', '--data-dir', dataDir], {
      cwd: ROOT,
      timeoutMs: 60_000,
    });
    const tookMs = Date.now() - started;

    // Assess: the bound is 10 s for the answer itself (the process start is extra).
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(`the local run (pid ${stopped.pid}) is not answering`);
    expect(tookMs).toBeLessThan(RUN_ANSWER_MS + 20_000);
    rmSync(join(dataDir, STACK_FILE));
  }, 120_000);
});
