import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import type { WebhookProtection as WebhookProtectionSettings } from '../config';
import type { ResourceNames } from '../resource-names';
import { type FunctionNetwork, type FunctionSettings, PipelineFunction } from './pipeline-function';
import type { ResultsQueue } from './results-queue';
import type { Secrets } from './secrets';
import { WebhookProtection } from './webhook-protection';

/**
 * The API Gateway account settings (`AWS::ApiGateway::Account` and its CloudWatch Logs role) created by a
 * pipeline, by app and by the account and region of its stack: one setting per account and region, which
 * a second copy would overwrite and, when its stack goes, take from under the first. The first pipeline of
 * an app in an account and region creates it; every later one (same stack, or another stack of the app)
 * deploys its stage after it. Environment-agnostic stacks count as one account and region.
 */
const ACCOUNT_SETTINGS = new WeakMap<IConstruct, Map<string, Construct>>();

/** The account settings an earlier pipeline of this app created for the account and region of `scope`. */
function accountSettingsOf(scope: Construct): { readonly key: string; readonly created?: Construct } {
  const stack = Stack.of(scope);
  const byEnvironment = ACCOUNT_SETTINGS.get(scope.node.root) ?? new Map<string, Construct>();
  ACCOUNT_SETTINGS.set(scope.node.root, byEnvironment);
  const key = `${stack.account}/${stack.region}`;
  const created = byEnvironment.get(key);
  return created === undefined ? { key } : { key, created };
}

/** The API's one stage, the first segment of every webhook path. */
const STAGE_NAME = 'v1';

/** Properties of {@link WebhookApi}. */
export interface WebhookApiProps {
  /**
   * Tracing, log retention and level, and metrics dimensions of the function; the access logs take the
   * same log retention.
   */
  readonly functionSettings: FunctionSettings;
  /** Stage-wide throttling: steady requests per second. */
  readonly webhookRateLimit: number;
  /** Stage-wide throttling: burst. */
  readonly webhookBurstLimit: number;
  /** The WAF web ACL's settings on the stage; `false` leaves the stage without WAF. */
  readonly webhookProtection: WebhookProtectionSettings | false;
  /** Queue the webhook function sends resultIds (and upload notifications) to. */
  readonly queue: ResultsQueue;
  /** The secrets; the function reads only the webhook path segment every `{token}` is compared with. */
  readonly secrets: Secrets;
  /** Key that encrypts the access log group. */
  readonly encryptionKey: kms.IKey;
  /** What happens to the log groups when the stack is deleted. */
  readonly logRemovalPolicy: RemovalPolicy;
  /** The pipeline's names (the API's and the web ACL's). */
  readonly names: ResourceNames;
  /** The VPC subnets the function runs in. @default no VPC */
  readonly network?: FunctionNetwork;
  /**
   * Create the account's API Gateway CloudWatch Logs role (`AWS::ApiGateway::Account`, one setting per
   * account and region). `false` where the landing zone manages it; access logs need it to exist.
   * @default true
   */
  readonly accountCloudWatchRole?: boolean;
}

/**
 * The public entry of the result and upload webhooks: a REST API with `POST /webhooks/{token}/result`
 * and `POST /webhooks/{token}/upload` proxied to the webhook function, which may only read the webhook
 * secret and send to the queue. Strangers are kept from making us spend by the secret path segment
 * (checked in the function), stage throttling, request validation (a JSON object body) and the body
 * limit: REST APIs have no body-size setting (10 MB hard limit), the function rejects bodies > 256 KB.
 * Where `webhookProtection` is on (production by default), a WAF web ACL keeps strangers from using up
 * the stage throttle the real webhooks share.
 */
export class WebhookApi extends Construct {
  /** The REST API. */
  readonly api: apigateway.RestApi;
  /** The function behind both routes. */
  readonly webhookFunction: PipelineFunction;
  /** Base URL of the webhook routes, ending in `/webhooks/`; the secret segment is not part of it. */
  readonly webhookBaseUrl: string;
  /** The WAF web ACL on the stage, unless the environment's `webhookProtection` is `false`. */
  readonly protection?: WebhookProtection;

  constructor(scope: Construct, id: string, props: WebhookApiProps) {
    super(scope, id);

    this.webhookFunction = new PipelineFunction(this, 'WebhookFunction', {
      entry: 'functions/webhook/handler.ts',
      description: 'Accepts result and upload webhooks of the verification service and enqueues them.',
      functionSettings: props.functionSettings,
      memorySize: 256,
      logRemovalPolicy: props.logRemovalPolicy,
      logEncryptionKey: props.encryptionKey,
      network: props.network,
    });
    props.secrets.grantWebhookSecretRead(this.webhookFunction.function);
    props.queue.grantSend(this.webhookFunction.function);

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.functionSettings.logRetentionDays as logs.RetentionDays,
      encryptionKey: props.encryptionKey,
      removalPolicy: props.logRemovalPolicy,
    });

    // One account setting per account and region: the first pipeline of the app there creates it.
    const accountSettings = props.accountCloudWatchRole === false ? undefined : accountSettingsOf(this);
    const createsAccountRole = accountSettings !== undefined && accountSettings.created === undefined;
    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: props.names.optional('webhooks'),
      description: 'Result and upload webhooks of the identity verification service.',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // Access logs need the account-level API Gateway CloudWatch role; kept when the stack goes,
      // because other stacks of the account may rely on it.
      ...(createsAccountRole
        ? { cloudWatchRole: true, cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN }
        : { cloudWatchRole: false }),
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: props.webhookRateLimit,
        throttlingBurstLimit: props.webhookBurstLimit,
        // Off: an API Gateway trace segment records the request URL, whose path holds the webhook secret.
        // The function keeps its own tracing (it sees the resource template, not the secret in a URL).
        tracingEnabled: false,
        // Standard fields only: they carry the resource template (`/webhooks/{token}/result`), never
        // the requested path with the secret segment, and never the body.
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
        // Execution logs would write the real request path (with the secret) and, with data trace,
        // identity data: off on purpose.
        loggingLevel: apigateway.MethodLoggingLevel.OFF,
        dataTraceEnabled: false,
        metricsEnabled: true,
      },
    });

    if (accountSettings !== undefined) {
      if (createsAccountRole) {
        ACCOUNT_SETTINGS.get(this.node.root)!.set(accountSettings.key, this.api.node.findChild('Account'));
      } else {
        // The stage's access logs need the role set first (another stack: CDK orders the stacks).
        this.api.deploymentStage.node.addDependency(accountSettings.created!);
      }
    }

    const validator = this.api.addRequestValidator('BodyValidator', {
      requestValidatorName: 'json-object-body',
      validateRequestBody: true,
      validateRequestParameters: true,
    });
    const jsonObject = this.api.addModel('JsonObject', {
      contentType: 'application/json',
      modelName: 'JsonObject',
      description: 'Any JSON object: webhook bodies are only a hint and their fields are not specified.',
      schema: { schema: apigateway.JsonSchemaVersion.DRAFT4, type: apigateway.JsonSchemaType.OBJECT },
    });

    const integration = new apigateway.LambdaIntegration(this.webhookFunction.function, { proxy: true });
    const tokenResource = this.api.root.addResource('webhooks').addResource('{token}');
    const methods = ['result', 'upload'].map((route) =>
      tokenResource.addResource(route).addMethod('POST', integration, {
        requestValidator: validator,
        requestModels: { 'application/json': jsonObject },
        requestParameters: { 'method.request.path.token': true },
        authorizationType: apigateway.AuthorizationType.NONE,
      }),
    );
    this.webhookBaseUrl = this.api.urlForPath('/webhooks/');

    if (props.webhookProtection === false) {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'webhookProtection is false for this environment (cdk.json): callers without the secret path ' +
          'segment get 404 from a 256 MB function and the stage is throttled; a web ACL (about $7 a month, ' +
          'docs/deploy.md) is left to environments where starved webhooks would matter.',
      });
    } else {
      this.protection = new WebhookProtection(this, 'Protection', {
        stage: this.api.deploymentStage,
        stageName: STAGE_NAME,
        names: props.names,
        settings: props.webhookProtection,
      });
    }

    for (const method of methods) {
      Validations.of(method).acknowledge(
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'The verification service cannot sign or authenticate webhook calls; the 40-character secret ' +
            'path segment, compared in constant time by the function, is the credential.',
        },
        {
          id: 'AwsSolutions-COG4',
          reason:
            'The caller is the verification service, not a user: there is no Cognito identity to check.',
        },
      );
    }
    Validations.of(this.webhookFunction.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked synchronously by API Gateway only: a failure is a 5xx the service retries, there is no ' +
        'asynchronous event a DLQ could keep.',
    });
    Validations.of(this.api).acknowledge(
      {
        id: 'Serverless-APIGWXrayEnabled',
        reason:
          'Off on purpose: API Gateway trace segments record the request URL, whose path holds the webhook ' +
          'secret. The webhook function itself is traced.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'Execution logging is off on purpose: it records the request path, which contains the webhook ' +
          'secret. Access logs (resource template only) and metrics are on.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The account-level API Gateway logging role needs this AWS policy to deliver access logs.',
      },
    );
  }
}
