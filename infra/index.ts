/**
 * Public API of the CDK construct library (`idv-pipeline/cdk`): {@link IdvPipeline} and its props.
 * Peer dependencies: `aws-cdk-lib` and `constructs`. docs/construct.md describes props, outputs, grants
 * and what existing resources must allow.
 */
export type { ServiceEnvironment } from '../shared/api/enums';
export type { CustomerReferenceMode } from '../shared/config';
export type {
  LogLevel,
  PipelineSettings,
  StorageClassOptions,
  TracingSetting,
  WebhookProtection,
} from './config';
export type { AnalyticsIceberg } from './constructs/analytics-iceberg';
export type { Erasure } from './constructs/erasure';
export type { Monitoring } from './constructs/monitoring';
export type { Poller } from './constructs/poller';
export type { ResultFetcher } from './constructs/result-fetcher';
export type { ResultsQueue } from './constructs/results-queue';
export type { Secrets } from './constructs/secrets';
export {
  IdvPipelineVpcEndpoints,
  type IdvPipelineVpcEndpointsProps,
  type IIdvPipelineVpcEndpoints,
} from './constructs/vpc-endpoints';
export type { WebhookApi } from './constructs/webhook-api';
export { IdvPipeline } from './idv-pipeline';
export type { IdvAnalyticsOptions, IdvPipelineProps } from './idv-pipeline-props';
export { IdvPipelineValidationError } from './idv-pipeline-settings';
