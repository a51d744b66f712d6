import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** Properties of {@link EncryptionKey}. */
export interface EncryptionKeyProps {
  /** Alias without the `alias/` prefix, e.g. `idv-pipeline-staging`. @default no alias */
  readonly aliasName?: string;
  /** Keep the key when the stack is deleted (retained data stays readable). */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The stack's one customer-managed KMS key (yearly rotation) for the queue, DLQ, table, data bucket,
 * secrets, alarm topic and log groups. Callers get key access through the grants of the resources it
 * protects; the key policy only adds the AWS services that encrypt on their own behalf.
 */
export class EncryptionKey extends Construct {
  /** The key. */
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: EncryptionKeyProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description:
        props.aliasName === undefined
          ? 'idv-pipeline data key'
          : `idv-pipeline data key (${props.aliasName})`,
      enableKeyRotation: true,
      ...(props.aliasName !== undefined && { alias: `alias/${props.aliasName}` }),
      removalPolicy: props.removalPolicy,
    });
    admitPipelineServices(this.key);
  }
}

/**
 * Adds to `key`'s policy what the AWS services that encrypt on the pipeline's behalf need: CloudWatch
 * Logs (the log groups) and CloudWatch (alarms publishing to an encrypted topic). A key defined in the
 * same app gets the statements; an imported key's policy cannot be changed from here (`false`): its
 * owner adds them (docs/construct.md, "An existing key").
 */
export function admitPipelineServices(key: kms.IKey): boolean {
  const stack = Stack.of(key);
  const added: boolean[] = [];
  // CloudWatch Logs encrypts log groups with the key itself, scoped to this account's log groups.
  added.push(
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': `arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:*`,
          },
        },
      }),
    ).statementAdded,
  );
  // CloudWatch alarms publish to the KMS-encrypted alarm topic.
  added.push(
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    ).statementAdded,
  );
  return added.every(Boolean);
}

/** AWS services that use the stack key on a caller's behalf (the `kms:ViaService` prefix). */
export type KeyUsingService = 'sqs' | 'secretsmanager' | 'dynamodb' | 's3';

/**
 * A role statement that lets a caller use `key` only through `service`, for the exact operations that
 * service performs on its behalf (e.g. SQS `GenerateDataKey`/`Decrypt` for a sender): the role cannot
 * decrypt anything with the key directly, and no `kms:*Foo*` action families are granted.
 */
export function keyUseThrough(
  key: kms.IKey,
  service: KeyUsingService,
  actions: readonly `kms:${string}`[],
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: [...actions],
    resources: [key.keyArn],
    conditions: { StringEquals: { 'kms:ViaService': `${service}.${Stack.of(key).region}.amazonaws.com` } },
  });
}
