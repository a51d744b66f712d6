import { Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseEnvironmentConfig } from '../../infra/config';
import { IdvPipelineValidationError } from '../../infra/idv-pipeline-settings';
import { RESULTS_TABLE } from '../../shared/store/table-schema';
import { synthesise } from './stack-fixture';

/** Memory of the fetch-result function in a synthesised stack. */
function fetchResultMemory(overrides: Record<string, unknown> = {}): number {
  const { stack } = synthesise('staging', overrides);
  const fn = stack.node.findAll().find((c) => c.node.path.endsWith('FetchResultFunction/Function')) as {
    node: { defaultChild?: unknown };
  };
  return Stack.of(stack).resolve((fn.node.defaultChild as CfnFunction).memorySize) as number;
}

describe('the cost settings of the functions', () => {
  it('gives fetch-result 256 MB by default, and what an environment sets', () => {
    // Act
    const byDefault = fetchResultMemory({ fetchResultMemoryMb: undefined });
    const configured = fetchResultMemory({ fetchResultMemoryMb: 512 });

    // Assess
    expect(byDefault).toBe(256);
    expect(configured).toBe(512);
  });

  it.each([
    [127, 'must be an integer from 128 to 10240'],
    [10_241, 'must be an integer from 128 to 10240'],
    ['lots', 'must be a number'],
  ])('refuses fetchResultMemoryMb %j naming the setting', (value, message) => {
    // Act
    const parse = () =>
      parseEnvironmentConfig('staging', {
        serviceBaseUrl: 'https://service.example',
        retentionDays: 30,
        fetchResultMemoryMb: value,
      });

    // Assess
    expect(parse).toThrow(IdvPipelineValidationError);
    expect(parse).toThrow(
      `IdvPipeline: fetchResultMemorySize ${message} (cdk.json context.environments.staging.fetchResultMemoryMb)`,
    );
  });

  it('projects keys only into the transaction and reference indexes, and the two filter attributes into the day index', () => {
    // Prepare
    const { template } = synthesise('production');

    // Act
    const [table] = Object.values(template.findResources('AWS::DynamoDB::Table'));
    const indexes = table!.Properties.GlobalSecondaryIndexes as {
      IndexName: string;
      Projection: { ProjectionType: string; NonKeyAttributes?: string[] };
    }[];
    const projection = (name: string) => indexes.find((index) => index.IndexName === name)?.Projection;

    // Assess
    expect(indexes).toHaveLength(3);
    expect(projection(RESULTS_TABLE.indexes.byTransactionId.indexName)).toEqual({
      ProjectionType: 'KEYS_ONLY',
    });
    expect(projection(RESULTS_TABLE.indexes.byCustomerReference.indexName)).toEqual({
      ProjectionType: 'KEYS_ONLY',
    });
    expect(projection(RESULTS_TABLE.indexes.byCompletedDay.indexName)).toEqual({
      ProjectionType: 'INCLUDE',
      NonKeyAttributes: ['result', 'product'],
    });
  });

  it('never projects the document or an attribute that can hold personal data', () => {
    // Prepare
    const { template } = synthesise('production');
    const forbidden = ['document', 'objects', 'messages', 'sections', 'userId'];

    // Act
    const [table] = Object.values(template.findResources('AWS::DynamoDB::Table'));
    const projected = (
      table!.Properties.GlobalSecondaryIndexes as { Projection: { NonKeyAttributes?: string[] } }[]
    ).flatMap((index) => index.Projection.NonKeyAttributes ?? []);

    // Assess
    expect(projected.filter((name) => forbidden.includes(name))).toEqual([]);
    expect(
      (table!.Properties.GlobalSecondaryIndexes as { Projection: { ProjectionType: string } }[]).map(
        (index) => index.Projection.ProjectionType,
      ),
    ).not.toContain('ALL');
  });
});
