import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { parseEnvironmentConfig } from '../../infra/config';
import { tracedFunctionOf } from '../../infra/constructs/pipeline-function';
import { IdvPipelineValidationError } from '../../infra/idv-pipeline-settings';
import { synthesise } from './stack-fixture';

/** Tracing mode and tracer switch of every function, by its entry folder (from the function's description). */
function tracingByFunction(overrides: Record<string, unknown>) {
  const { stack, template } = synthesise('staging', overrides);
  const functions = template.findResources('AWS::Lambda::Function');
  const byDescription = Object.values(functions).map((fn) => ({
    description: String(fn.Properties.Description),
    mode: fn.Properties.TracingConfig?.Mode ?? 'none',
    tracer: fn.Properties.Environment?.Variables?.POWERTOOLS_TRACE_ENABLED,
  }));
  return { stack, template, byDescription };
}

const BASE = { serviceBaseUrl: 'https://service.example', retentionDays: 30 };

describe('tracing by function (issue 25, item 2)', () => {
  it('traces every function actively by default', () => {
    // Act
    const { byDescription } = tracingByFunction({ tracing: undefined });

    // Assess
    expect(byDescription.length).toBe(4);
    for (const fn of byDescription) expect([fn.mode, fn.tracer]).toEqual(['Active', 'true']);
  });

  it('switches one function off and another to pass-through, tracer included, and stays nag-clean', () => {
    // Act
    const { stack, template } = tracingByFunction({
      tracing: { default: 'active', 'fetch-result': 'off', webhook: 'pass-through' },
    });

    // Assess
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Fetches'),
      TracingConfig: Match.absent(),
      Environment: { Variables: Match.objectLike({ POWERTOOLS_TRACE_ENABLED: 'false' }) },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('[Ww]ebhook'),
      TracingConfig: { Mode: 'PassThrough' },
      Environment: { Variables: Match.objectLike({ POWERTOOLS_TRACE_ENABLED: 'true' }) },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('[Pp]oll'),
      TracingConfig: { Mode: 'Active' },
    });
    const findings = [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
      pack.validateScope(stack).violations.map((v) => v.ruleName),
    );
    expect(findings).toEqual([]);
  });

  it('takes one mode for all functions', () => {
    // Act
    const config = parseEnvironmentConfig('staging', { ...BASE, tracing: 'pass-through' });

    // Assess
    expect(Object.values(config.tracing)).toEqual([
      'pass-through',
      'pass-through',
      'pass-through',
      'pass-through',
      'pass-through',
    ]);
  });

  it.each([['sampled'], [{ 'fetch-result': 'sometimes' }], [{ fetchResult: 'off' }], [0.05]])(
    'refuses tracing %j, naming the setting',
    (tracing) => {
      // Act
      const parse = () => parseEnvironmentConfig('staging', { ...BASE, tracing });

      // Assess
      expect(parse).toThrow(IdvPipelineValidationError);
      expect(parse).toThrow('IdvPipeline: tracing must be one of active, pass-through, off');
    },
  );

  it('knows the function of each entry, and refuses an entry outside functions/', () => {
    // Act / Assess
    expect(tracedFunctionOf('functions/projector/transform.ts')).toBe('projector');
    expect(() => tracedFunctionOf('bench/support/size-worker.ts')).toThrow('not under functions/');
  });
});
