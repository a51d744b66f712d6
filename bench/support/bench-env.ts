/**
 * The environment every bench gives the real handlers: the emulators' endpoints and credentials
 * (`LocalAws.env`), the functions' variables for the bench's resources (`pipelineEnv`) with staging's
 * settings, and the quiet defaults of a bench (no metrics unless asked, no SDK Node-version warning).
 */
import type { LocalAws } from '../../local/local-aws';
import { type PipelineResources, pipelineEnv } from '../../local/pipeline-resources';
import { DEFAULT_PIPELINE_SCOPES } from '../../shared/config';

/** Options of {@link benchEnv}. */
export interface BenchEnvOptions {
  /** Where the handlers reach the service (the webhook never calls it, but the stack sets it). */
  readonly serviceUrl: string;
  /** @default the pipeline's default scopes */
  readonly scopes?: string | readonly string[];
  /** The fetch-result pace of one process (`IDV_SERVICE_REQUESTS_PER_SECOND`). @default none */
  readonly serviceRequestsPerSecond?: number | undefined;
  /** Keep metrics on (EMF lines on stdout, as deployed); else they are disabled. @default false */
  readonly metrics?: boolean;
}

/** The handlers' environment on `aws` with `resources`; spread overrides after it. */
export function benchEnv(
  aws: Pick<LocalAws, 'env'>,
  resources: PipelineResources,
  options: BenchEnvOptions,
): Record<string, string> {
  return {
    ...aws.env(),
    ...pipelineEnv(resources, {
      serviceBaseUrl: options.serviceUrl,
      environment: 'staging',
      retentionDays: 30,
      scopes: options.scopes ?? DEFAULT_PIPELINE_SCOPES,
      ...(options.serviceRequestsPerSecond !== undefined && {
        serviceRequestsPerSecond: options.serviceRequestsPerSecond,
      }),
    }),
    ...(options.metrics !== true && { POWERTOOLS_METRICS_DISABLED: 'true' }),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
