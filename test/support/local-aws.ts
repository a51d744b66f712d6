/**
 * Local AWS emulators for integration tests: start them on free ports, create the pipeline's
 * resources, and hand the handlers their environment. See `local/local-aws.ts`.
 */

export {
  clientConfig,
  LOCAL_ACCOUNT_ID,
  type LocalAws,
  type LocalAwsOptions,
  type LocalAwsService,
  type LocalClientConfig,
  type LocalEvent,
  type LocalEventListener,
  startLocalAws,
} from '../../local/local-aws';
export {
  createPipelineResources,
  type PipelineEnvSettings,
  type PipelineResourceOptions,
  type PipelineResources,
  pipelineEnv,
} from '../../local/pipeline-resources';
