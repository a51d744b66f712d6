import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { parseEnvironmentConfig } from '../../infra/config';
import { DataBucket } from '../../infra/constructs/data-bucket';
import { IdvPipelineValidationError, storageClassesOf } from '../../infra/idv-pipeline-settings';
import { storagePlan } from '../../shared/storage-plan';
import { RESULTS_PREFIX } from '../../shared/store/keys';
import { synthesise } from './stack-fixture';

/** A data bucket alone in a stack, with the pipeline's defaults for the rest. */
function dataBucket(
  retentionDays: number,
  storageClasses: ReturnType<typeof storageClassesOf>,
  existing = false,
) {
  const stack = new Stack(new App(), 'Data');
  const construct = new DataBucket(stack, 'DataBucket', {
    encryptionKey: new kms.Key(stack, 'Key'),
    retentionDays,
    accessLogRetentionDays: 90,
    removalPolicy: RemovalPolicy.RETAIN,
    storageClasses,
    ...(existing && { existingBucket: s3.Bucket.fromBucketName(stack, 'Theirs', 'their-bucket') }),
  });
  return { stack, construct, template: Template.fromStack(stack) };
}

/** The lifecycle rules of the bucket under the results prefix that move objects to another class. */
function transitionRules(template: Template): Record<string, unknown>[] {
  return Object.values(template.findResources('AWS::S3::Bucket')).flatMap((bucket) =>
    ((bucket.Properties.LifecycleConfiguration?.Rules ?? []) as Record<string, unknown>[]).filter(
      (rule) => rule['Transitions'] !== undefined,
    ),
  );
}

describe('the storage classes of the result objects', () => {
  it('moves result objects above the break-even size to Glacier Instant Retrieval after a day at 90 days', () => {
    // Prepare
    const expected = storagePlan({
      retentionDays: 90,
      noncurrentDays: 1,
      standardDays: 1,
      lateReadsPerObject: 0.1,
    }).transitions[0]!;

    // Act
    const { template } = dataBucket(90, storageClassesOf({}));

    // Assess
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          // Expiry and the noncurrent versions' removal stay as they were, for every class.
          Match.objectLike({
            Id: 'retention',
            ExpirationInDays: 90,
            NoncurrentVersionExpiration: { NoncurrentDays: 1 },
          }),
          Match.objectLike({
            Id: 'storage-class-1',
            Status: 'Enabled',
            Prefix: RESULTS_PREFIX,
            ObjectSizeGreaterThan: String(expected.objectSizeGreaterThan),
            Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 1 }],
          }),
        ]),
      },
    });
    expect(expected.storageClass).toBe('GLACIER_IR');
    // Current versions only: no noncurrent transition, no rule for the staging prefix.
    for (const rule of transitionRules(template)) {
      expect(rule['NoncurrentVersionTransitions']).toBeUndefined();
      expect(rule['Prefix']).toBe(RESULTS_PREFIX);
    }
  });

  it('adds no transition when switched off', () => {
    // Act
    const { template } = dataBucket(365, false);

    // Assess
    expect(transitionRules(template)).toEqual([]);
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Id: 'retention', ExpirationInDays: 365 })]),
      },
    });
  });

  it('adds no transition for a 30-day retention: no class pays for so short a stay', () => {
    // Act
    const { template } = dataBucket(30, storageClassesOf({}));

    // Assess
    expect(transitionRules(template)).toEqual([]);
  });

  it("leaves an existing bucket's lifecycle to its owner and names the rules to add", () => {
    // Act
    const { stack, template } = dataBucket(90, storageClassesOf({}), true);

    // Assess: only the access log bucket is created, and the synth carries the rules in words.
    expect(Object.keys(template.findResources('AWS::S3::Bucket'))).toHaveLength(1);
    expect(transitionRules(template)).toEqual([]);
    Annotations.fromStack(stack).hasInfo(
      '*',
      Match.stringLikeRegexp(
        'storageClasses: .*prefix results/, ObjectSizeGreaterThan \\d+: transition to GLACIER_IR after 1 day',
      ),
    );
  });

  it("takes each environment's setting from cdk.json: transitions in production, none in staging", () => {
    // Act
    const production = synthesise('production').template;
    const staging = synthesise('staging').template;

    // Assess
    expect(transitionRules(production).map((r) => r['Transitions'])).toEqual([
      [{ StorageClass: 'GLACIER_IR', TransitionInDays: 1 }],
    ]);
    expect(transitionRules(staging)).toEqual([]);
  });

  it.each([
    [{ standardDays: -1 }, 'storageClasses.standardDays'],
    [{ standardDays: 1.5 }, 'storageClasses.standardDays'],
    [{ lateReadsPerObject: -1 }, 'storageClasses.lateReadsPerObject'],
    [{ lateReadsPerObject: Number.POSITIVE_INFINITY }, 'storageClasses.lateReadsPerObject'],
    ['yes', 'storageClasses'],
  ])('refuses the prop %j naming %s', (value, prop) => {
    // Act
    const validate = () => storageClassesOf(value as never);

    // Assess
    expect(validate).toThrow(IdvPipelineValidationError);
    expect(validate).toThrow(`IdvPipeline: ${prop} `);
  });

  it.each([
    ['false', false],
    [false, false],
    [{ lateReadsPerObject: 1 }, { standardDays: 1, lateReadsPerObject: 1 }],
  ])("reads cdk.json storageClasses %j through the props' rules", (value, settings) => {
    // Act
    const config = parseEnvironmentConfig('staging', {
      serviceBaseUrl: 'https://service.example',
      retentionDays: 30,
      storageClasses: value,
    });

    // Assess
    expect(config.storageClasses).toEqual(settings);
  });

  it.each([
    [{ standardDays: '1' }, 'storageClasses.standardDays'],
    [{ lateReads: 1 }, 'storageClasses'],
    [7, 'storageClasses'],
  ])('refuses cdk.json storageClasses %j naming %s, as the prop would be', (value, prop) => {
    // Act
    const parse = () =>
      parseEnvironmentConfig('staging', {
        serviceBaseUrl: 'https://service.example',
        retentionDays: 30,
        storageClasses: value,
      });

    // Assess
    expect(parse).toThrow(IdvPipelineValidationError);
    expect(parse).toThrow(`IdvPipeline: ${prop} `);
  });

  it('keeps the default on when cdk.json says nothing', () => {
    // Act
    const config = parseEnvironmentConfig('staging', {
      serviceBaseUrl: 'https://service.example',
      retentionDays: 30,
    });

    // Assess
    expect(config.storageClasses).toEqual({ standardDays: 1, lateReadsPerObject: 0.1 });
  });
});
