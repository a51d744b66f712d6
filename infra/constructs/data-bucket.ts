import { Annotations, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { type PlanTransition, type StoragePlan, storagePlan } from '../../shared/storage-plan';
import { RESULTS_PREFIX, STAGING_PREFIX } from '../../shared/store/keys';
import type { StorageClassSettings } from '../idv-pipeline-settings';

/** Days an expired (or overwritten) result object's version is kept as noncurrent. */
const NONCURRENT_DAYS = 1;

/** Where a bucket's server access logs go; the bucket policy there admits that bucket alone. */
export interface AccessLogDestination {
  /**
   * Sends `source`'s server access logs under `prefix` and lets the S3 logging service write them, for
   * `source` of this account only.
   */
  logAccessOf(source: s3.Bucket, prefix: string): void;
}

/** Properties of {@link DataBucket}. */
export interface DataBucketProps {
  /** Key that encrypts the data bucket. */
  readonly encryptionKey: kms.IKey;
  /** Days a stored result's objects are kept (the environment's retention setting). */
  readonly retentionDays: number;
  /** Days server access logs are kept. */
  readonly accessLogRetentionDays: number;
  /** Keep both buckets when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * An existing bucket for the result objects, used as it is: its encryption, versioning, lifecycle
   * and access logging are its owner's (docs/construct.md, "An existing bucket"). Only the access log
   * bucket (for the analytics bucket) is created then. @default a new bucket
   */
  readonly existingBucket?: s3.IBucket;
  /**
   * The storage plan's figures (shared/storage-plan.ts, docs/storage.md): lifecycle transitions of the
   * result objects to the instant-read class that costs least for the rest of the retention; `false`
   * keeps them in S3 Standard. An existing bucket gets none: a note says which rules to add.
   * @default false
   */
  readonly storageClasses?: false | StorageClassSettings;
}

/**
 * The data bucket (result.json, decoded images and files of every result) and the bucket that
 * receives its server access logs. Identity documents live here, so: KMS, block public access, TLS
 * only, versioning (a bad write can be undone), lifecycle expiry from the retention setting, and the
 * storage plan's transitions to cheaper classes that still read at once (docs/storage.md).
 */
export class DataBucket extends Construct implements AccessLogDestination {
  /** Bucket of result objects under `results/{resultId}/`. */
  readonly bucket: s3.IBucket;
  /** Bucket of the data bucket's server access logs. */
  readonly accessLogBucket: s3.Bucket;
  /** The storage plan of the result objects, when `storageClasses` is not `false`. */
  readonly storagePlan?: StoragePlan;

  constructor(scope: Construct, id: string, props: DataBucketProps) {
    super(scope, id);

    this.accessLogBucket = new s3.Bucket(this, 'AccessLogBucket', {
      // S3 server access logging cannot deliver to a bucket encrypted with a customer-managed key.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      versioned: true,
      removalPolicy: props.removalPolicy,
      lifecycleRules: [
        {
          expiration: Duration.days(props.accessLogRetentionDays),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
    });
    Validations.of(this.accessLogBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access log bucket of the data bucket; logging it to itself would loop.',
    });

    const settings = props.storageClasses ?? false;
    if (settings !== false) {
      this.storagePlan = storagePlan({
        retentionDays: props.retentionDays,
        noncurrentDays: NONCURRENT_DAYS,
        ...settings,
      });
    }
    const transitions = this.storagePlan?.transitions ?? [];

    if (props.existingBucket !== undefined) {
      this.bucket = props.existingBucket;
      if (transitions.length > 0) {
        // The owner's lifecycle is left alone; what the plan would add is said where the synth shows it.
        Annotations.of(this).addInfo(
          `storageClasses: the data bucket is not created here; to keep its result objects at least cost, add these lifecycle rules (docs/storage.md): ${transitions.map(describe).join('; ')}`,
        );
      }
      return;
    }
    const baseRules: s3.LifecycleRule[] = [
      {
        id: 'retention',
        expiration: Duration.days(props.retentionDays),
        // Versioning protects against bad writes, not against the retention promise.
        noncurrentVersionExpiration: Duration.days(NONCURRENT_DAYS),
        abortIncompleteMultipartUploadAfter: Duration.days(1),
        // No expiredObjectDeleteMarker here: S3 rejects it next to expiration days (MalformedXML at
        // deploy time), even when false.
      },
      {
        // Multipart uploads of large blobs (docs/pipeline.md, "Streaming fetch-and-store"): a failed one
        // is aborted by the function, one a crash abandoned is aborted here; a staged blob that a crash
        // left before its copy to results/ expires.
        id: 'staging',
        prefix: STAGING_PREFIX,
        expiration: Duration.days(1),
        noncurrentVersionExpiration: Duration.days(1),
        abortIncompleteMultipartUploadAfter: Duration.days(1),
      },
      {
        // After expiry and the noncurrent version's removal only the delete marker is left; drop it.
        id: 'expired-delete-markers',
        expiredObjectDeleteMarker: true,
      },
    ];
    const bucket = new s3.Bucket(this, 'Bucket', {
      ...privateBucketProps(props.encryptionKey, props.removalPolicy),
      versioned: true,
      lifecycleRules: [
        ...baseRules,
        // Current versions only: a noncurrent one lives a day, too short for any class to gain, and the
        // erasure deletes every version whatever its class (docs/storage.md).
        ...transitions.map((t, index) => lifecycleRuleOf(t, index)),
      ],
    });
    sizeFiltersAsStrings(bucket, baseRules.length, transitions);
    this.logAccessOf(bucket, 'data-bucket/');
    this.bucket = bucket;
  }

  /**
   * The logging configuration is set on the source bucket directly rather than through
   * `serverAccessLogsBucket`: for a source in another stack (the analytics nested stack) CDK would add
   * the logging service's statement without any condition, so any bucket of any account could write
   * here. AWS's guidance for log delivery is `aws:SourceArn` and `aws:SourceAccount` on that statement.
   */
  logAccessOf(source: s3.Bucket, prefix: string): void {
    (source.node.defaultChild as s3.CfnBucket).loggingConfiguration = {
      destinationBucketName: this.accessLogBucket.bucketName,
      logFilePrefix: prefix,
    };
    this.accessLogBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('logging.s3.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [this.accessLogBucket.arnForObjects(`${prefix}*`)],
        conditions: {
          ArnLike: { 'aws:SourceArn': source.bucketArn },
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
        },
      }),
    );
  }
}

/** The lifecycle rule of one planned transition: result objects of its size band, current versions. */
function lifecycleRuleOf(t: PlanTransition, index: number): s3.LifecycleRule {
  return {
    id: `storage-class-${index + 1}`,
    prefix: RESULTS_PREFIX,
    objectSizeGreaterThan: t.objectSizeGreaterThan,
    ...(t.objectSizeLessThan !== undefined && { objectSizeLessThan: t.objectSizeLessThan }),
    transitions: [
      { storageClass: new s3.StorageClass(t.storageClass), transitionAfter: Duration.days(t.days) },
    ],
  };
}

/** One planned transition in words, for the owner of an existing bucket. */
function describe(t: PlanTransition): string {
  const band =
    t.objectSizeLessThan === undefined
      ? `ObjectSizeGreaterThan ${t.objectSizeGreaterThan}`
      : `ObjectSizeGreaterThan ${t.objectSizeGreaterThan} and ObjectSizeLessThan ${t.objectSizeLessThan}`;
  return `prefix ${RESULTS_PREFIX}, ${band}: transition to ${t.storageClass} after ${t.days} day(s)`;
}

/**
 * CloudFormation types a rule's size filters as strings (CDK renders the numbers, which its template
 * validation warns about): the rules after the first `first` are the plan's, in order.
 */
function sizeFiltersAsStrings(
  bucket: s3.Bucket,
  first: number,
  transitions: readonly PlanTransition[],
): void {
  const cfn = bucket.node.defaultChild as s3.CfnBucket;
  transitions.forEach((t, index) => {
    const rule = `LifecycleConfiguration.Rules.${first + index}`;
    cfn.addPropertyOverride(`${rule}.ObjectSizeGreaterThan`, String(t.objectSizeGreaterThan));
    if (t.objectSizeLessThan !== undefined) {
      cfn.addPropertyOverride(`${rule}.ObjectSizeLessThan`, String(t.objectSizeLessThan));
    }
  });
}

/**
 * What every bucket of results holds to: encrypted with `encryptionKey` (bucket keys cut KMS requests, one
 * per object otherwise, without weakening the key policy), private, owned by the account, TLS only.
 */
export function privateBucketProps(encryptionKey: kms.IKey, removalPolicy: RemovalPolicy): s3.BucketProps {
  return {
    encryption: s3.BucketEncryption.KMS,
    encryptionKey,
    bucketKeyEnabled: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    removalPolicy,
  };
}
