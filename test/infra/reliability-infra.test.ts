/**
 * Infra of docs/reliability.md: the untraced API stage and the poll's enqueue markers.
 */
import { Stack } from 'aws-cdk-lib';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PipelineFunction } from '../../infra/constructs/pipeline-function';
import { ENV } from '../../shared/config';
import { type SynthesisedStack, synthesise } from './stack-fixture';

let synth: SynthesisedStack;
const logicalId = (construct: { node: { defaultChild?: unknown } }): string =>
  synth.stack.resolve((construct.node.defaultChild as CfnTable).logicalId) as string;
const environmentOf = (fn: PipelineFunction): Record<string, unknown> => {
  const cfn = fn.function.node.defaultChild as CfnFunction;
  return (Stack.of(cfn).resolve(cfn.environment) as { variables: Record<string, unknown> }).variables;
};

beforeAll(() => {
  synth = synthesise('staging');
});

describe('reliability infra', () => {
  it('does not trace the API stage (its segments record the URL with the secret); the functions stay traced', () => {
    // Act
    const stages = Object.values(synth.template.findResources('AWS::ApiGateway::Stage'));

    // Assess
    expect(stages).toHaveLength(1);
    expect(stages[0]!.Properties.TracingEnabled).not.toBe(true);
    synth.template.allResourcesProperties('AWS::Lambda::Function', { TracingConfig: { Mode: 'Active' } });
  });

  it('keeps the enqueue markers in a TTL table of their own, windowed by the queue visibility timeout', () => {
    // Prepare
    const markers = logicalId(synth.stack.poller.markersTable);
    const queue = Object.values(synth.template.findResources('AWS::SQS::Queue')).find(
      (q) => q.Properties.VisibilityTimeout !== undefined,
    );

    // Act
    const env = environmentOf(synth.stack.poller.pollFunction);

    // Assess
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'resultId', KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    expect(env[ENV.pollMarkersTableName]).toEqual({ Ref: markers });
    expect(env[ENV.pollMarkerWindowSeconds]).toBe(String(queue!.Properties.VisibilityTimeout));
  });
});
