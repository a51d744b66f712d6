import * as path from 'node:path';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config';
import { METRICS } from '../../shared/metrics-names';
import { LAMBDA_BUNDLING, PROJECT_ROOT } from '../bundling/lambda-bundling';
import { prebuiltBundleDir } from '../bundling/prebuilt';
import { type PipelineSettings, TRACED_FUNCTIONS, type TracedFunction, type TracingMode } from '../config';

/** The settings every pipeline function reads: tracing, log retention and level, metrics dimensions. */
export type FunctionSettings = Pick<
  PipelineSettings,
  'tracing' | 'logRetentionDays' | 'logLevel' | 'metricsServiceName' | 'serviceEnvironment'
>;

/** Lambda's tracing setting and the tracer's switch for each mode of `tracing` (infra/config.ts). */
const TRACING: Record<TracingMode, { lambda: lambda.Tracing; tracer: 'true' | 'false' }> = {
  active: { lambda: lambda.Tracing.ACTIVE, tracer: 'true' },
  'pass-through': { lambda: lambda.Tracing.PASS_THROUGH, tracer: 'true' },
  off: { lambda: lambda.Tracing.DISABLED, tracer: 'false' },
};

/** The function an entry belongs to (`functions/<name>/…`), whose `tracing` setting applies. */
export function tracedFunctionOf(entry: string): TracedFunction {
  const name = entry.split('/')[1] ?? '';
  if (!(TRACED_FUNCTIONS as readonly string[]).includes(name)) {
    throw new Error(`${entry}: not under functions/<${TRACED_FUNCTIONS.join('|')}>/`);
  }
  return name as TracedFunction;
}

/** Properties of {@link PipelineFunction}. */
export interface PipelineFunctionProps {
  /** Handler entry relative to the repository root, e.g. `functions/poll/handler.ts` (exports `handler`). */
  readonly entry: string;
  /** Tracing, log retention and level, and metrics dimensions of the function. */
  readonly functionSettings: FunctionSettings;
  /** What the function does, shown in the console. */
  readonly description: string;
  /** @default Duration.seconds(30) */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySize?: number;
  /** What happens to the log group when the stack is deleted. */
  readonly logRemovalPolicy: RemovalPolicy;
  /** Key that encrypts the log group (the stack key; its policy admits CloudWatch Logs). */
  readonly logEncryptionKey: kms.IKey;
  /** The VPC subnets the function runs in. @default no VPC */
  readonly network?: FunctionNetwork;
  /** Concurrency reserved for (and capping) the function. @default none: the account's unreserved pool */
  readonly reservedConcurrentExecutions?: number;
}

/** Where a function runs inside a VPC. */
export interface FunctionNetwork {
  /** The VPC. */
  readonly vpc: ec2.IVpc;
  /** Its subnets the functions use (private, with a route to the service for poll and fetch-result). */
  readonly subnets: ec2.SubnetSelection;
  /** Security groups of the functions (outbound only). */
  readonly securityGroups: ec2.ISecurityGroup[];
}

/**
 * The one place for the house defaults of every Lambda function: Node 24 on ARM64, ESM bundle with
 * source maps, X-Ray tracing as the environment's `tracing` says for the function, a log group with retention, the Powertools variables, and an execution
 * role that can only write its own log group. Callers add grants and variables through the construct
 * that owns the resource ({@link PipelineFunction.addEnvironment}).
 */
export class PipelineFunction extends Construct {
  /** The Lambda function. */
  readonly function: lambda.Function;
  /** The function's log group (retention from the environment settings). */
  readonly logGroup: logs.LogGroup;
  /** Handler entry relative to the repository root (what the bundle size check builds). */
  readonly entry: string;

  constructor(scope: Construct, id: string, props: PipelineFunctionProps) {
    super(scope, id);
    const { functionSettings } = props;
    this.entry = props.entry;
    const mode = functionSettings.tracing[tracedFunctionOf(props.entry)];
    const tracing = TRACING[mode];

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: functionSettings.logRetentionDays as logs.RetentionDays,
      encryptionKey: props.logEncryptionKey,
      removalPolicy: props.logRemovalPolicy,
    });

    // An explicit role instead of the default one: AWSLambdaBasicExecutionRole would allow writing to
    // every log group of the account.
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${Stack.of(this).stackName}/${id}`,
    });
    this.logGroup.grantWrite(role);

    const settings: Omit<lambda.FunctionProps, 'code' | 'handler'> = {
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(30),
      ...(props.reservedConcurrentExecutions !== undefined && {
        reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      }),
      tracing: tracing.lambda,
      role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        [METRICS.serviceNameVariable]: functionSettings.metricsServiceName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS.namespace,
        POWERTOOLS_LOG_LEVEL: functionSettings.logLevel,
        // Tracer (shared/tracing.ts): as the function's tracing mode says, and never the handler's
        // response or error text in a trace — either may carry personal data; the code adds only ids
        // and error names itself.
        POWERTOOLS_TRACE_ENABLED: tracing.tracer,
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        POWERTOOLS_TRACER_CAPTURE_ERROR: 'false',
        [ENV.environment]: functionSettings.serviceEnvironment,
      },
      ...(props.network && {
        vpc: props.network.vpc,
        vpcSubnets: props.network.subnets,
        securityGroups: props.network.securityGroups,
      }),
    };
    const prebuilt = prebuiltBundleDir(PROJECT_ROOT, props.entry);
    this.function =
      prebuilt === undefined
        ? new NodejsFunction(this, 'Function', {
            ...settings,
            entry: path.join(PROJECT_ROOT, props.entry),
            handler: 'handler',
            projectRoot: PROJECT_ROOT,
            depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
            bundling: {
              ...LAMBDA_BUNDLING,
              mainFields: [...LAMBDA_BUNDLING.mainFields],
              externalModules: [],
            },
          })
        : new lambda.Function(this, 'Function', {
            ...settings,
            // What NodejsFunction deploys: index.mjs (ESM) exporting `handler`, with its source map.
            code: lambda.Code.fromAsset(prebuilt),
            handler: 'index.handler',
          });

    if (tracing.lambda !== lambda.Tracing.ACTIVE) {
      Validations.of(this.function).acknowledge({
        id: 'Serverless-LambdaTracing',
        reason: `Tracing is "${mode}" by the environment's tracing setting (docs/deploy.md, "Tracing and its cost").`,
      });
    }

    if (props.network) {
      // The role is ours, so Lambda's VPC managed policy is not attached: the network interfaces
      // Lambda creates in the subnets, with exactly the actions AWSLambdaVPCAccessExecutionRole has.
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DescribeNetworkInterfaces',
            'ec2:DescribeSubnets',
            'ec2:DeleteNetworkInterface',
            'ec2:AssignPrivateIpAddresses',
            'ec2:UnassignPrivateIpAddresses',
          ],
          resources: ['*'],
        }),
      );
    }

    // X-Ray's PutTraceSegments/PutTelemetryRecords have no resource-level permissions (Lambda grants
    // them for `active` and `pass-through`).
    const traced = tracing.lambda !== lambda.Tracing.DISABLED;
    if (traced || props.network) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: traced
          ? 'Active tracing needs xray:PutTraceSegments/PutTelemetryRecords, which only accept Resource "*"' +
            (props.network ? '; so do the EC2 network-interface actions of a function in a VPC.' : '.')
          : 'The EC2 network-interface actions of a function in a VPC only accept Resource "*".',
      });
    }
  }

  /** Sets an environment variable of the function; `name` comes from `ENV` in `shared/config.ts`. */
  addEnvironment(name: string, value: string): void {
    this.function.addEnvironment(name, value);
  }
}
