import { type RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config';
import type { PipelineSettings } from '../config';
import { SECRET_PURPOSES } from '../secret-names';
import { keyUseThrough } from './encryption-key';

/** Where and with which scopes a function calls the service (from the environment's settings). */
export type ServiceConnection = Pick<PipelineSettings, 'serviceBaseUrl' | 'scopes'>;

/** Properties of {@link Secrets}. */
export interface SecretsProps {
  /**
   * Name prefix, e.g. `idv-pipeline/staging`; secrets are `<prefix>/client-credentials` etc.
   * @default no names: CloudFormation names the secrets (the stack outputs say which is which)
   */
  readonly namePrefix?: string;
  /** Key that encrypts the three secrets. */
  readonly encryptionKey: kms.IKey;
  /** What happens to the secrets when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The three secrets of the pipeline, all KMS-encrypted:
 * - client credentials `{"clientId","clientSecret"}`: created as `{}`; the operator puts the values in
 *   (docs/deploy.md), so they never pass through CloudFormation;
 * - token cache: the shared access token, `{}` until a function first refreshes it;
 * - webhook secret: the 40-character alphanumeric path segment of the webhook URL, generated here.
 */
export class Secrets extends Construct {
  /** Client credentials of the service account. */
  readonly credentials: secretsmanager.Secret;
  /** Shared access-token cache (read and written by poll and fetch-result). */
  readonly tokenCache: secretsmanager.Secret;
  /** Secret path segment of the webhook URL (read by the webhook function only). */
  readonly webhook: secretsmanager.Secret;
  private readonly encryptionKey: kms.IKey;

  constructor(scope: Construct, id: string, props: SecretsProps) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    const named = (purpose: string) =>
      props.namePrefix === undefined ? {} : { secretName: `${props.namePrefix}/${purpose}` };

    this.credentials = new secretsmanager.Secret(this, 'CredentialsSecret', {
      ...named(SECRET_PURPOSES.credentials),
      description:
        'Client credentials of the verification service: {"clientId","clientSecret"}; set by the operator.',
      encryptionKey: props.encryptionKey,
      // A placeholder, not a secret: the real value is put by the operator after deployment.
      secretStringValue: SecretValue.unsafePlainText('{}'),
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.credentials).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The client credentials are issued by the verification service; they are rotated there and put ' +
        'here by the operator (docs/deploy.md), so no Lambda rotation can produce them.',
    });

    this.tokenCache = new secretsmanager.Secret(this, 'TokenCacheSecret', {
      ...named(SECRET_PURPOSES.tokenCache),
      description: 'Shared access-token cache of the pipeline functions; rewritten on every token refresh.',
      encryptionKey: props.encryptionKey,
      secretStringValue: SecretValue.unsafePlainText('{}'),
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.tokenCache).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The cached access token expires within the hour and the functions replace it on refresh.',
    });

    this.webhook = new secretsmanager.Secret(this, 'WebhookSecret', {
      ...named(SECRET_PURPOSES.webhookPath),
      description: 'Secret path segment of the webhook URL registered at the verification service.',
      encryptionKey: props.encryptionKey,
      generateSecretString: {
        passwordLength: 40,
        excludePunctuation: true,
        includeSpace: false,
      },
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.webhook).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The webhook path secret is also configured at the verification service, so rotating it is a ' +
        'coordinated manual change (docs/deploy.md); an automatic rotation would break delivery.',
    });
  }

  /**
   * Grants what a function that talks to the service needs: read the credentials, read the token
   * cache and put a new version of it (not UpdateSecret, which could change its key or policy).
   * No DescribeSecret: the code only calls GetSecretValue and PutSecretValue. Sets the variables a
   * service call needs too (`ENV.serviceBaseUrl`, `ENV.scopes`, `ENV.credentialsSecretId`,
   * `ENV.tokenCacheSecretId`), so a grant and the variables that use it never part.
   */
  grantServiceAccess(fn: lambda.Function, service: ServiceConnection): void {
    fn.addEnvironment(ENV.serviceBaseUrl, service.serviceBaseUrl);
    fn.addEnvironment(ENV.scopes, service.scopes.join(','));
    fn.addEnvironment(ENV.credentialsSecretId, this.credentials.secretArn);
    fn.addEnvironment(ENV.tokenCacheSecretId, this.tokenCache.secretArn);
    this.grantGetValue(fn, this.credentials, this.tokenCache);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:PutSecretValue'],
        resources: [this.tokenCache.secretArn],
      }),
    );
    // A new secret version gets a new data key from the stack key.
    fn.addToRolePolicy(keyUseThrough(this.encryptionKey, 'secretsmanager', ['kms:GenerateDataKey']));
  }

  /**
   * Grants reading the webhook path secret, and nothing else (the webhook function), and sets the
   * function's `ENV.webhookSecretId`.
   */
  grantWebhookSecretRead(fn: lambda.Function): void {
    fn.addEnvironment(ENV.webhookSecretId, this.webhook.secretArn);
    this.grantGetValue(fn, this.webhook);
  }

  private grantGetValue(grantee: iam.IGrantable, ...secrets: secretsmanager.ISecret[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: secrets.map((secret) => secret.secretArn),
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      keyUseThrough(this.encryptionKey, 'secretsmanager', ['kms:Decrypt']),
    );
  }
}
