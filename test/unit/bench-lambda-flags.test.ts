/**
 * The size and fetch-result benches run the handler with the V8 memory flags Lambda's Node.js runtime
 * derives from the function's memory (bench/support/lambda-flags.ts), for the memory the stack deploys.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FUNCTION_MEMORY_MB, lambdaNodeFlags } from '../../bench/support/lambda-flags';

describe('Lambda’s V8 memory flags in the benches', () => {
  it('follow the runtime’s arithmetic: a tenth for the young generation, half of it per semi-space', () => {
    expect(lambdaNodeFlags(256)).toEqual(['--max-semi-space-size=12', '--max-old-space-size=231']);
    expect(lambdaNodeFlags(1024)).toEqual(['--max-semi-space-size=51', '--max-old-space-size=922']);
  });

  it('are taken for the memory fetch-result has in every environment of cdk.json', () => {
    const cdk = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
      context: { environments: Record<string, { fetchResultMemoryMb?: number }> };
    };
    const memories = Object.values(cdk.context.environments).map((e) => e.fetchResultMemoryMb);
    expect(new Set(memories)).toEqual(new Set([FUNCTION_MEMORY_MB]));
  });
});
