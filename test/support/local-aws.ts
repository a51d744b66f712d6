/**
 * Local AWS emulators for integration tests: start them on free ports, create the pipeline's
 * resources, and hand the handlers their environment. See `bin/local/local-aws.ts`.
 */
export {
  clientConfig,
  createPipelineResources,
  LOCAL_ACCOUNT_ID,
  type LocalAws,
  type LocalAwsOptions,
  type LocalAwsService,
  type LocalClientConfig,
  type LocalEvent,
  type LocalEventListener,
  type PipelineEnvSettings,
  type PipelineResourceOptions,
  type PipelineResources,
  pipelineEnv,
  startLocalAws,
} from '../../bin/local/local-aws';
