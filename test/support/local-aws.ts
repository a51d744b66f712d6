/**
 * Local AWS emulators for integration tests: start them on free ports, create the pipeline's
 * resources, and hand the handlers their environment. See `local/local-aws.ts`.
 */

export { clientConfig, type LocalAwsService, type LocalClientConfig } from '../../local/client-config';
export type { LocalEvent, LocalEventListener } from '../../local/fake-eventbridge';
export { LOCAL_ACCOUNT_ID, type LocalAws, type LocalAwsOptions, startLocalAws } from '../../local/local-aws';
export {
  createPipelineResources,
  type PipelineEnvSettings,
  type PipelineResourceOptions,
  type PipelineResources,
  pipelineEnv,
} from '../../local/pipeline-resources';
