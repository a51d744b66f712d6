/**
 * Benchmark child: the real `functions/webhook/handler.ts` behind the local API Gateway adapter
 * (`local/api-gateway.ts`), with the environment the parent hands over (emulator endpoints and
 * `pipelineEnv`). The load generator and the emulators live in the parent, so this process's CPU is the
 * handler's and the adapter's alone.
 *
 * Requests (IPC): `{ type: 'cpu' }` → the process's CPU time so far (ms).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { startWebhookEndpoint } from '../../local/api-gateway';
import { lambdaContext } from '../../local/lambda-context';
import { serveParent } from './child';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

async function init() {
  const handler = (await import('../../functions/webhook/handler')).handler as unknown as Handler;
  const endpoint = await startWebhookEndpoint({
    handler,
    context: () => lambdaContext('bench-webhook', process.env.AWS_REGION!, 10_000),
  });
  return { url: endpoint.url };
}

await serveParent(init, async (message) => {
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    return { type: 'cpu', cpuMs: (user + system) / 1000, rss: process.memoryUsage.rss() };
  }
  throw new Error(`unknown request ${String(message.type)}`);
});
