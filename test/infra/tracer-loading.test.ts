import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureBundle } from '../../infra/bundling/bundle-size';
import { createTracer, NO_TRACER, tracingIsOff } from '../../shared/tracing';

// The handler's own configuration, enough for its module to load (nothing is called).
const HANDLER_ENV = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  IDV_ENVIRONMENT: 'staging',
  IDV_BASE_URL: 'https://service.invalid',
  IDV_SCOPES: 'results',
  IDV_CREDENTIALS_SECRET_ID: 'credentials',
  IDV_TOKEN_CACHE_SECRET_ID: 'token-cache',
  IDV_RESULTS_TABLE: 'results',
  IDV_DATA_BUCKET: 'data',
  IDV_EVENT_BUS: 'bus',
  IDV_RETENTION_DAYS: '30',
};
const IN_LAMBDA = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', LAMBDA_TASK_ROOT: '/var/task' };

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'idv-tracer-'));
  bundle = path.join(dir, 'index.mjs');
  await measureBundle('functions/fetch-result/handler.ts', bundle);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads the bundled handler in a fresh Node with only `env`; says whether the X-Ray SDK's CLS namespace exists. */
function xrayLoaded(env: Record<string, string>): boolean {
  const probe =
    `await import(${JSON.stringify(pathToFileURL(bundle).href)});` +
    'process.stdout.write(String(Boolean(process.namespaces?.AWSXRay)));';
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
    env: { PATH: process.env.PATH ?? '', ...HANDLER_ENV, ...env },
    encoding: 'utf8',
  });
  return out === 'true';
}

describe('the X-Ray SDK loads only where tracing is on (shared/tracing.ts)', () => {
  it('is not loaded by the bundled fetch-result outside Lambda', () => {
    expect(xrayLoaded({})).toBe(false);
  });

  it('is not loaded in Lambda with POWERTOOLS_TRACE_ENABLED=false, in any case', () => {
    expect(xrayLoaded({ ...IN_LAMBDA, POWERTOOLS_TRACE_ENABLED: 'false' })).toBe(false);
    expect(xrayLoaded({ ...IN_LAMBDA, POWERTOOLS_TRACE_ENABLED: 'FALSE' })).toBe(false);
  });

  it('is loaded in Lambda with tracing on, as the stack sets it or by default', () => {
    expect(xrayLoaded({ ...IN_LAMBDA, POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(true);
    expect(xrayLoaded(IN_LAMBDA)).toBe(true);
  });

  it('gives the tracer that does nothing where tracing is off, Powertools’ Tracer where it is on', async () => {
    // Assess
    expect(tracingIsOff({})).toBe(true);
    expect(tracingIsOff({ ...IN_LAMBDA, POWERTOOLS_TRACE_ENABLED: 'False' })).toBe(true);
    expect(tracingIsOff({ ...IN_LAMBDA, POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(false);
    expect(await createTracer({})).toBe(NO_TRACER);
    const on = await createTracer({ ...IN_LAMBDA });
    expect(on).not.toBe(NO_TRACER);
    expect(on.constructor.name).toBe('Tracer');
  });

  it('lets the tracer that does nothing stand in for every call the functions make', () => {
    // Act
    const client = { send: () => 'sent' };

    // Assess
    expect(NO_TRACER.captureAWSv3Client(client)).toBe(client);
    expect(NO_TRACER.getSegment()).toBeUndefined();
    expect(() => {
      NO_TRACER.putAnnotation('resultId', 'r-1');
      NO_TRACER.putMetadata('error', { name: 'Error' });
      NO_TRACER.annotateColdStart();
      NO_TRACER.addServiceNameAnnotation();
    }).not.toThrow();
    expect(Object.isFrozen(NO_TRACER)).toBe(true);
  });
});
