/**
 * Every copy of a result has a bound, and the receipt names it (docs/erasure.md): the synthesized template
 * configures each store that keeps copies an erasure cannot delete at once — PITR recovery period, event
 * archive, `athena-results/` and `delivery-errors/` lifecycle rules, Iceberg snapshot retention and
 * orphan-file deletion — from the one set of bounds the `ErasureBounds` output carries, and the receipt
 * built from that output gives each store exactly the template's days. The projection's transform reads
 * erasure records and nothing else of the results table.
 */
import { App, Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { IdvPipeline } from '../../infra/idv-pipeline';
import type { IdvPipelineProps } from '../../infra/idv-pipeline-props';
import { ENV } from '../../shared/config';
import {
  type CopyBounds,
  DEFAULT_COPY_BOUNDS,
  erasureReceipt,
  LAZY_REMOVAL_DAYS,
  parseCopyBounds,
} from '../../shared/erasure/bounds';
import { actionsOf, type IamStatement } from './stack-fixture';

const BASE: IdvPipelineProps = {
  environmentName: 'production',
  serviceBaseUrl: 'https://service.example',
  serviceEnvironment: 'production',
  alarmEmail: 'privacy-ops@example.com',
  retention: Duration.days(30),
  removalPolicy: RemovalPolicy.DESTROY,
  // A template check that deploys nothing: the example addresses are placeholders.
  allowPlaceholders: true,
};

/** The pipeline in a stack of its own, with the root and the analytics nested stack's templates. */
function build(props: Partial<IdvPipelineProps> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Bounds', { env: { account: '123456789012', region: 'eu-west-1' } });
  const pipeline = new IdvPipeline(stack, 'Pipeline', { ...BASE, ...props });
  const nested = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack);
  return {
    pipeline,
    root: Template.fromStack(stack),
    analytics: Template.fromStack(nested.find((n) => n.node.id === 'Analytics')!),
  };
}

/** The days each delayed store keeps a copy, as the templates say. */
function templateDays(root: Template, analytics: Template) {
  const table = Object.values(root.findResources('AWS::DynamoDB::Table')).find(
    (t) => t.Properties.PointInTimeRecoverySpecification,
  )!;
  const archive = Object.values(root.findResources('AWS::Events::Archive'))[0]!;
  const bucket = Object.values(analytics.findResources('AWS::S3::Bucket')).find(
    (b) => b.Properties.LifecycleConfiguration,
  )!;
  const rules = bucket.Properties.LifecycleConfiguration.Rules as {
    Prefix?: string;
    ExpirationInDays?: number;
  }[];
  const optimizers = Object.values(analytics.findResources('AWS::Glue::TableOptimizer'));
  const config = (type: string) =>
    optimizers.find((o) => o.Properties.Type === type)!.Properties.TableOptimizerConfiguration;
  return {
    pitrEnabled: table.Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled as boolean,
    tableRecoveryDays: table.Properties.PointInTimeRecoverySpecification.RecoveryPeriodInDays as number,
    eventArchiveDays: archive.Properties.RetentionDays as number,
    queryResultsDays: rules.find((r) => r.Prefix === 'athena-results/')!.ExpirationInDays!,
    deliveryErrorsDays: rules.find((r) => r.Prefix === 'delivery-errors/')!.ExpirationInDays!,
    snapshotRetentionDays: config('retention').RetentionConfiguration.IcebergConfiguration
      .SnapshotRetentionPeriodInDays as number,
    cleanExpiredFiles: config('retention').RetentionConfiguration.IcebergConfiguration
      .CleanExpiredFiles as boolean,
    orphanFileDays: config('orphan_file_deletion').OrphanFileDeletionConfiguration.IcebergConfiguration
      .OrphanFileRetentionPeriodInDays as number,
  };
}

/** The `ErasureBounds` output of the root template. */
function outputBounds(root: Template): CopyBounds {
  const output = Object.entries(root.findOutputs('*')).find(([id]) => id.includes('ErasureBounds'))!;
  return parseCopyBounds(output[1].Value as string);
}

const DAY_MS = 86_400_000;

describe('copy bounds in the template and the receipt', () => {
  it('configures every delayed copy within a week by default (the archive: the result retention)', () => {
    // Act
    const { root, analytics } = build();
    const days = templateDays(root, analytics);

    // Assess
    expect(days).toEqual({
      pitrEnabled: true,
      tableRecoveryDays: 7,
      eventArchiveDays: 30,
      queryResultsDays: 7,
      deliveryErrorsDays: 7,
      snapshotRetentionDays: 7,
      cleanExpiredFiles: true,
      orphanFileDays: 3,
    });
    expect(outputBounds(root)).toEqual({ ...DEFAULT_COPY_BOUNDS, eventArchiveDays: 30 });
  });

  it('gives each store of the receipt exactly the days the template configures', () => {
    // Prepare
    const { root, analytics } = build({ copyBounds: { tableRecoveryDays: 2, snapshotRetentionDays: 4 } });
    const days = templateDays(root, analytics);
    const erasedAt = '2026-09-01T10:00:00.000Z';

    // Act
    const receipt = erasureReceipt(erasedAt, { local: false, analytics: true, bounds: outputBounds(root) });

    // Assess: days after the erasure, per store (the lazy stores get their removal lag on top).
    const daysAfter = (entry: { expiresBy: string } | undefined) =>
      (Date.parse(entry!.expiresBy) - Date.parse(erasedAt)) / DAY_MS;
    expect(days.tableRecoveryDays).toBe(2);
    expect(days.snapshotRetentionDays).toBe(4);
    expect(daysAfter(receipt.tableBackups)).toBe(days.tableRecoveryDays);
    expect(daysAfter(receipt.eventArchive)).toBe(days.eventArchiveDays + LAZY_REMOVAL_DAYS);
    expect(daysAfter(receipt.queryResults)).toBe(days.queryResultsDays + LAZY_REMOVAL_DAYS);
    expect(daysAfter(receipt.deliveryErrors)).toBe(days.deliveryErrorsDays + LAZY_REMOVAL_DAYS);
    expect(daysAfter(receipt.analyticsSnapshots)).toBe(
      Math.max(days.snapshotRetentionDays, days.orphanFileDays) + LAZY_REMOVAL_DAYS,
    );
    expect(receipt).toMatchObject({
      dataBucket: { erased: true },
      tables: { erased: true },
      analyticsRow: { erased: true },
    });
  });

  it('caps the analytics prefixes by a shorter result retention', () => {
    // Act
    const { root, analytics } = build({ retention: Duration.days(3) });

    // Assess
    expect(templateDays(root, analytics)).toMatchObject({
      queryResultsDays: 3,
      deliveryErrorsDays: 3,
      eventArchiveDays: 3,
    });
    expect(outputBounds(root)).toMatchObject({ queryResultsDays: 3, deliveryErrorsDays: 3 });
  });

  it('refuses a bound out of range, naming it', () => {
    // Act / Assess
    expect(() => build({ copyBounds: { tableRecoveryDays: 36 } })).toThrow(
      'copyBounds.tableRecoveryDays must be a whole number of days from 1 to 35',
    );
    expect(() => build({ copyBounds: { orphanFileDays: 0.5 } })).toThrow('copyBounds.orphanFileDays');
  });

  it('lets the projection transform read erasure records of the results table, and nothing else of it', () => {
    // Prepare
    const { root, analytics } = build();
    const tableId = Object.entries(root.findResources('AWS::DynamoDB::Table')).find(
      ([, t]) => t.Properties.PointInTimeRecoverySpecification,
    )![0];
    const transform = Object.entries(analytics.findResources('AWS::Lambda::Function')).find(([, f]) =>
      JSON.stringify(f.Properties.Environment ?? {}).includes('IDV_ANALYTICS_TABLE'),
    )!;
    const roleId = (transform[1].Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const statements = Object.values(analytics.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as (IamStatement & { Condition?: unknown })[]);

    // Act
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));

    // Assess
    expect(Object.keys(transform[1].Properties.Environment.Variables)).toContain(ENV.resultsTableName);
    expect(dynamo).toHaveLength(1);
    expect(actionsOf(dynamo[0]!)).toEqual(['dynamodb:BatchGetItem']);
    expect(dynamo[0]!.Condition).toMatchObject({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['*#erasure'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['resultId'] },
    });
    // The table's ARN comes into the nested stack as a parameter of the root's table.
    expect(JSON.stringify(root.toJSON())).toContain(tableId);
  });
});
