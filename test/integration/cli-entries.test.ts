/**
 * The command-line entries as real processes, where the behaviour lives in the process: the AWS SDK's
 * Node-version warning (printed by the SDK itself, on Node < 22), the CDK app's exit on a bad
 * configuration, and what `idv --help` loads: none of the emulators nor DuckDB, which only the commands
 * that use them import (they were two thirds of its start time).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdv } from '../support/cli';
import { ROOT } from '../support/run-process';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

/** Runs `tsx file args` in `cwd` with `env` only (no AWS_SDK_* variable inherited from vitest). */
function tsx(
  file: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [join(ROOT, file), ...args],
      {
        cwd,
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
        timeout: 90_000,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('idv entries and the local data directory', () => {
  let dir: string;
  let dataDir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'idv-entries-'));
    // What `npm start` leaves (the DynamoDB emulator's directory): enough for --local to open it.
    dataDir = join(dir, 'data');
    mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints no NodeVersionSupportWarning from npm run idv nor npx idv (both bin/idv.mjs)', async () => {
    // Act
    const viaTsx = await tsx('bin/idv.ts', ['results', 'list', '--local', '--data-dir', dataDir], {});
    const viaShim = await runIdv(['results', 'list', '--local', '--data-dir', dataDir]);

    // Assess
    for (const run of [viaTsx, viaShim]) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([]);
      expect(run.stderr).not.toContain('NodeVersionSupportWarning');
    }
  });

  it('refuses --local from a directory without local data, creating nothing (exit 2)', async () => {
    // Prepare: like `npx idv results list --local` run from docs/.
    const sub = join(dir, 'docs');
    mkdirSync(sub);

    // Act
    const run = await runIdv(['results', 'list', '--local'], { cwd: sub });

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`idv: no local data at ${join(sub, '.local')}: run \`npm start\` first`);
    expect(existsSync(join(sub, '.local'))).toBe(false);
  });
});

describe('CDK app (bin/app.ts)', () => {
  it('prints only "idv-pipeline: <message>" for a configuration error and exits 1', async () => {
    // Prepare: the context the cdk CLI passes for `npx cdk synth -c env=stagin`.
    const outdir = mkdtempSync(join(tmpdir(), 'idv-cdk-out-'));
    const { context } = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };

    // Act
    const run = await tsx('bin/app.ts', [], {
      CDK_CONTEXT_JSON: JSON.stringify({ ...context, env: 'stagin' }),
      CDK_OUTDIR: outdir,
    }).finally(() => rmSync(outdir, { recursive: true, force: true }));

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('idv-pipeline: unknown environment "stagin"; configured: staging, production\n');
  });

  it('refuses production with placeholder addresses, unless the template check allows them', async () => {
    // Prepare: cdk.json as shipped (example-domain URLs).
    const { context } = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    const synth = async (extra: Record<string, unknown>) => {
      const outdir = mkdtempSync(join(tmpdir(), 'idv-cdk-out-'));
      return tsx('bin/app.ts', [], {
        CDK_CONTEXT_JSON: JSON.stringify({
          ...context,
          env: 'production',
          'aws:cdk:bundling-stacks': [],
          ...extra,
        }),
        CDK_OUTDIR: outdir,
      }).finally(() => rmSync(outdir, { recursive: true, force: true }));
    };

    // Act
    const refused = await synth({});
    const allowed = await synth({ allowPlaceholders: 'true' });
    const allowedByFormerName = await synth({ allowPlaceholderServiceUrls: 'true' });

    // Assess
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^idv-pipeline: IdvPipeline: serviceBaseUrl in production: /);
    expect(refused.stderr).toContain('serviceBaseUrl (https://verification-service.example)');
    expect(refused.stderr).toContain('alarmEmail (an address at example.com)');
    expect(refused.stderr).toContain('allowPlaceholders: true (cdk -c allowPlaceholders=true)');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowedByFormerName.code, allowedByFormerName.stderr).toBe(0);
  }, 180_000);
});

describe('idv --help', () => {
  it('loads neither the local emulators nor DuckDB', async () => {
    // Act
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['-r', join(ROOT, 'test', 'support', 'loaded-packages.cjs'), join(ROOT, 'bin', 'idv.mjs'), '--help'],
        {
          cwd: ROOT,
          env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
          timeout: 90_000,
        },
        (error, _stdout, stderr) => resolve({ code: error ? 1 : 0, stderr }),
      );
    });

    // Assess
    expect(run.code).toBe(0);
    const line = run.stderr.split('\n').find((l) => l.startsWith('LOADED-PACKAGES '));
    const loaded = JSON.parse(line?.slice('LOADED-PACKAGES '.length) ?? 'null') as string[];
    expect(loaded).toEqual(expect.any(Array));
    for (const heavy of ['dynalite', 's3rver', 'fauxqs', 'fastify', '@duckdb/node-api', 'aws-cdk-lib']) {
      expect(loaded, heavy).not.toContain(heavy);
    }
  }, 90_000);
});
