/**
 * Webhook benchmark: requests per second and latency of the real webhook handler behind the local API
 * Gateway adapter, each accepted request ending in a real SQS `SendMessage` (fauxqs).
 *
 * The handler runs in `support/webhook-worker.ts`; this process runs the emulators and a closed-loop load
 * generator (`concurrency` requests in flight, keep-alive connections) for a fixed time per scenario:
 * - `accepted`: a result webhook with a fresh resultId → 202 and one message on the queue;
 * - `wrong-secret`: the same body on a wrong secret path segment → 404, nothing enqueued (what a stranger
 *   can make us spend).
 *
 * `npx tsx bench/webhook.ts [--seconds N] [--concurrency N]` (`--help` lists them)
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientConfig } from '../local/client-config';
import { startLocalAws } from '../local/local-aws';
import { createPipelineResources } from '../local/pipeline-resources';
import { queueDepth } from '../shared/pipeline/queue';
import { type BenchValues, countFlag, optionsOrExit, parseBenchArgs, WEBHOOK_FLAGS } from './support/args';
import { benchEnv } from './support/bench-env';
import { startChild } from './support/child';
import { formatTable, latencySummary, round } from './support/stats';

/** Options of {@link runWebhookBench}. */
export interface WebhookBenchOptions {
  /** Measured seconds per scenario (after a warm-up). */
  seconds: number;
  /** Requests in flight at once. */
  concurrency: number;
  log?: (line: string) => void;
}

/** Defaults: about 15 s in all. */
export const DEFAULT_WEBHOOK_OPTIONS: WebhookBenchOptions = { seconds: 5, concurrency: 16 };

/** Figures of one scenario. */
export interface WebhookFigures {
  scenario: string;
  requests: number;
  requestsPerSecond: number;
  latencyMs: ReturnType<typeof latencySummary>;
  /** Status code → count; every answer of a scenario must have its expected status. */
  statuses: Record<string, number>;
  /** CPU of the handler process per request (ms). */
  cpuMsPerRequest: number;
}

/** What the bench returns. */
export interface WebhookBenchResult {
  concurrency: number;
  scenarios: WebhookFigures[];
  /** Messages on the queue after the run: one per accepted request (warm-up included). */
  checks: { accepted: number; enqueued: number };
}

/** Runs both scenarios; throws if an answer had an unexpected status or the queue count is off. */
export async function runWebhookBench(options: WebhookBenchOptions): Promise<WebhookBenchResult> {
  const log = options.log ?? (() => undefined);
  const aws = await startLocalAws();
  const cleanups: (() => Promise<unknown>)[] = [() => aws.close()];
  try {
    const resources = await createPipelineResources(aws, { prefix: 'idv-bench-webhook' });
    const secrets = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
    const { SecretString: secret } = await secrets.send(
      new GetSecretValueCommand({ SecretId: resources.webhookSecretId }),
    );
    secrets.destroy();
    const worker = startChild('support/webhook-worker.ts', {
      // The webhook never calls the service; the variable is set as the stack sets it.
      env: benchEnv(aws, resources, { serviceUrl: 'http://127.0.0.1:9', scopes: 'productapi.poll.read' }),
    });
    cleanups.push(() => worker.close());
    const { url } = (await worker.ready) as { url: string };

    let accepted = 0;
    const scenario = async (name: string, path: string, expected: number): Promise<WebhookFigures> => {
      log(`webhook: ${name}`);
      const send = async (): Promise<{ status: number; ms: number }> => {
        const started = performance.now();
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            resultId: `bench-${randomUUID()}`,
            transactionId: randomUUID(),
            completed: new Date().toISOString(),
          }),
        });
        await response.arrayBuffer();
        if (response.status === 202) accepted++;
        return { status: response.status, ms: performance.now() - started };
      };
      // Warm-up: connections, the secret read, JIT.
      await closedLoop(send, options.concurrency, 1000);
      const before = await worker.request<{ cpuMs: number }>({ type: 'cpu' });
      const started = performance.now();
      const answers = await closedLoop(send, options.concurrency, options.seconds * 1000);
      const elapsed = performance.now() - started;
      const after = await worker.request<{ cpuMs: number }>({ type: 'cpu' });
      const statuses: Record<string, number> = {};
      for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
      if (Object.keys(statuses).some((status) => Number(status) !== expected)) {
        throw new Error(`webhook bench ${name}: expected only ${expected}, got ${JSON.stringify(statuses)}`);
      }
      return {
        scenario: name,
        requests: answers.length,
        requestsPerSecond: round(answers.length / (elapsed / 1000)),
        latencyMs: latencySummary(answers.map((a) => a.ms)),
        statuses,
        cpuMsPerRequest: round((after.cpuMs - before.cpuMs) / answers.length, 2),
      };
    };

    const scenarios = [
      await scenario('accepted', `/webhooks/${secret}/result`, 202),
      await scenario('wrong-secret', `/webhooks/${'x'.repeat(secret?.length ?? 40)}/result`, 404),
    ];
    const sqs = new SQSClient(clientConfig(aws, 'sqs'));
    const depth = await queueDepth(sqs, resources.queueUrl);
    sqs.destroy();
    const checks = { accepted, enqueued: depth.visible + depth.inFlight + depth.delayed };
    if (checks.enqueued !== accepted) throw new Error(`webhook bench: ${JSON.stringify(checks)}`);
    return { concurrency: options.concurrency, scenarios, checks };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/** Keeps `concurrency` calls of `send` in flight until `durationMs` has passed; returns every answer. */
async function closedLoop<T>(send: () => Promise<T>, concurrency: number, durationMs: number): Promise<T[]> {
  const deadline = performance.now() + durationMs;
  const answers: T[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) answers.push(await send());
    }),
  );
  return answers;
}

/** The figures as a table. */
export function webhookTable(result: WebhookBenchResult): string {
  return formatTable(
    ['scenario', 'requests', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'CPU ms/req'],
    result.scenarios.map((s) => [
      s.scenario,
      s.requests,
      s.requestsPerSecond,
      s.latencyMs.p50,
      s.latencyMs.p95,
      s.latencyMs.p99,
      s.latencyMs.max,
      s.cpuMsPerRequest,
    ]),
  );
}

/** Help lines of the webhook bench's flags (also in `npm run bench -- --help`). */
export const WEBHOOK_FLAGS_HELP = `  --seconds N       measured seconds per scenario (default ${DEFAULT_WEBHOOK_OPTIONS.seconds})
  --concurrency N   requests in flight at once (default ${DEFAULT_WEBHOOK_OPTIONS.concurrency})`;

/** `npx tsx bench/webhook.ts --help`. */
export const WEBHOOK_USAGE = `Usage: npx tsx bench/webhook.ts [flags]

The webhook benchmark (see docs/benchmarks.md). Flags:
${WEBHOOK_FLAGS_HELP}
  -h, --help        show this help`;

/** Options from the parsed flags (`WEBHOOK_FLAGS`) over the defaults; a bad value is a usage error. */
export function webhookOptionsFromValues(values: BenchValues): WebhookBenchOptions {
  return {
    seconds: countFlag(values, 'seconds', DEFAULT_WEBHOOK_OPTIONS.seconds, 3600),
    concurrency: countFlag(values, 'concurrency', DEFAULT_WEBHOOK_OPTIONS.concurrency, 1000),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = optionsOrExit(
    parseBenchArgs(process.argv.slice(2), WEBHOOK_FLAGS, webhookOptionsFromValues),
    'bench/webhook',
    WEBHOOK_USAGE,
  );
  const result = await runWebhookBench({ ...options, log: console.error });
  console.log(webhookTable(result));
  console.log(JSON.stringify(result, null, 2));
}
