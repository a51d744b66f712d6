/**
 * What every pipeline bench stands on: a service child (the simulator or a stand-in), the local AWS emulators
 * and the pipeline's resources in them. `close()` undoes it all, and whatever the bench pushed onto
 * `cleanups`, in reverse order, failures ignored; a stage that fails to start closes what it had started.
 */
import { type LocalAws, startLocalAws } from '../../local/local-aws';
import { createPipelineResources, type PipelineResources } from '../../local/pipeline-resources';
import { type Child, startChild } from './child';
import { BENCH_CREDENTIALS } from './credentials';

/** A started stage; see the module comment. */
export interface BenchStage {
  readonly service: Child;
  readonly serviceUrl: string;
  readonly aws: LocalAws;
  readonly resources: PipelineResources;
  /** Run by `close()`, last pushed first. */
  readonly cleanups: (() => Promise<unknown>)[];
  close(): Promise<void>;
}

/** Options of {@link startBenchStage}. */
export interface BenchStageOptions {
  /** Prefix of the queue, tables, bucket and secrets, so benches never share them. */
  readonly prefix: string;
  /** The queue's visibility timeout: how long a record in work stays hidden before redelivery. */
  readonly visibilityTimeoutSeconds: number;
}

/** Starts `serviceModule` (relative to bench/, as `startChild` takes it), the emulators and the resources. */
export async function startBenchStage(
  serviceModule: string,
  options: BenchStageOptions,
): Promise<BenchStage> {
  const service = startChild(serviceModule);
  const cleanups: (() => Promise<unknown>)[] = [() => service.close()];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const aws = await startLocalAws();
    cleanups.push(() => aws.close());
    const { url: serviceUrl } = (await service.ready) as { url: string };
    const resources = await createPipelineResources(aws, {
      prefix: options.prefix,
      credentials: BENCH_CREDENTIALS,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      maxReceiveCount: 3,
    });
    return { service, serviceUrl, aws, resources, cleanups, close };
  } catch (error) {
    await close();
    throw error;
  }
}
