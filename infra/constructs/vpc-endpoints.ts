import { Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct, type IConstruct } from 'constructs';

/** Properties of {@link IdvPipelineVpcEndpoints}. */
export interface IdvPipelineVpcEndpointsProps {
  /** The VPC the pipelines' functions run in. */
  readonly vpc: ec2.IVpc;
  /** The subnets of the endpoints (those of the functions). @default private subnets with egress */
  readonly subnets?: ec2.SubnetSelection;
}

/** VPC endpoints the pipeline's functions may use: a VPC and a way to admit a security group. */
export interface IIdvPipelineVpcEndpoints {
  /** The VPC of the endpoints. */
  readonly vpc: ec2.IVpc;
  /** Lets `peer` (a pipeline's function security group) reach the interface endpoints over HTTPS. */
  allowFrom(peer: ec2.IConnectable): void;
}

/**
 * The VPC endpoints the pipeline's functions use, once per VPC: gateway endpoints for S3 and DynamoDB,
 * interface endpoints with private DNS for SQS, Secrets Manager, EventBridge and X-Ray. An interface
 * endpoint's private DNS name may exist only once per VPC, so every pipeline in the VPC shares these:
 * create one and pass it as `vpcEndpoints` to each `IdvPipeline` (docs/construct.md, "A VPC").
 */
export class IdvPipelineVpcEndpoints extends Construct implements IIdvPipelineVpcEndpoints {
  /** The VPC of the endpoints. */
  readonly vpc: ec2.IVpc;
  /** The interface endpoints (SQS, Secrets Manager, EventBridge, X-Ray), which admit only allowed peers. */
  readonly interfaceEndpoints: ec2.InterfaceVpcEndpoint[];

  constructor(scope: Construct, id: string, props: IdvPipelineVpcEndpointsProps) {
    super(scope, id);
    this.vpc = props.vpc;
    this.interfaceEndpoints = addEndpoints(this, props.vpc, props.subnets);
  }

  /** Lets `peer` (a pipeline's function security group) reach the interface endpoints over HTTPS. */
  allowFrom(peer: ec2.IConnectable): void {
    allowFrom(this.interfaceEndpoints, peer);
  }
}

function allowFrom(endpoints: ec2.InterfaceVpcEndpoint[], peer: ec2.IConnectable): void {
  for (const endpoint of endpoints) {
    // From the peer's side: the ingress rule goes into the peer's stack, so endpoints of a network stack
    // admit a pipeline of another stack without a dependency back on it.
    peer.connections.allowTo(endpoint, ec2.Port.tcp(443), 'idv-pipeline functions');
  }
}

/**
 * Endpoints a pipeline created by default, by app and VPC (its id when known at synth time, else the
 * object): the next pipeline in that VPC shares them, in the same stack or in another stack of the app.
 */
const CREATED_BY_PIPELINES = new WeakMap<IConstruct, Map<unknown, IIdvPipelineVpcEndpoints>>();

/**
 * The endpoints of `vpc` for a pipeline that was given none: those an earlier pipeline of the app created
 * in that VPC, else new ones in `scope` (the pipeline, with the ids it always had).
 */
export function defaultEndpoints(
  scope: Construct,
  vpc: ec2.IVpc,
  subnets: ec2.SubnetSelection,
): IIdvPipelineVpcEndpoints {
  const root = scope.node.root;
  const byVpc = CREATED_BY_PIPELINES.get(root) ?? new Map<unknown, IIdvPipelineVpcEndpoints>();
  CREATED_BY_PIPELINES.set(root, byVpc);
  const key = Token.isUnresolved(vpc.vpcId) ? vpc : vpc.vpcId;
  const found = byVpc.get(key);
  if (found !== undefined) return { vpc, allowFrom: (peer) => found.allowFrom(peer) };
  const endpoints = addEndpoints(scope, vpc, subnets);
  const created: IIdvPipelineVpcEndpoints = { vpc, allowFrom: (peer) => allowFrom(endpoints, peer) };
  byVpc.set(key, created);
  return created;
}

/** The gateway and interface endpoints, in `scope`; returns the interface endpoints. */
function addEndpoints(
  scope: Construct,
  vpc: ec2.IVpc,
  subnets: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
): ec2.InterfaceVpcEndpoint[] {
  // Gateway endpoints are free and keep S3 and DynamoDB traffic (result objects) off the NAT.
  new ec2.GatewayVpcEndpoint(scope, 'S3Endpoint', {
    vpc,
    service: ec2.GatewayVpcEndpointAwsService.S3,
    subnets: [subnets],
  });
  new ec2.GatewayVpcEndpoint(scope, 'DynamoDbEndpoint', {
    vpc,
    service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
    subnets: [subnets],
  });
  // The APIs the function code calls. Not KMS (SQS, S3, DynamoDB and Secrets Manager use the key on
  // the functions' behalf) and not CloudWatch Logs (Lambda ships the logs itself).
  const interfaces: [string, ec2.InterfaceVpcEndpointAwsService][] = [
    ['SqsEndpoint', ec2.InterfaceVpcEndpointAwsService.SQS],
    ['SecretsManagerEndpoint', ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER],
    ['EventBridgeEndpoint', ec2.InterfaceVpcEndpointAwsService.EVENTBRIDGE],
    ['XRayEndpoint', ec2.InterfaceVpcEndpointAwsService.XRAY],
  ];
  return interfaces.map(
    ([id, service]) =>
      new ec2.InterfaceVpcEndpoint(scope, id, {
        vpc,
        service,
        subnets,
        privateDnsEnabled: true,
        // Only the pipelines' functions may use them, not the whole VPC CIDR.
        open: false,
      }),
  );
}
