import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** Default function timeout of the local run, like the stack's function construct (milliseconds). */
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * A Lambda `Context` for one local invocation: a fresh request id, the function's name and a
 * `getRemainingTimeInMillis` that counts down from `timeoutMs`, so handler code that budgets its time
 * behaves as in Lambda.
 */
export function lambdaContext(functionName: string, region: string, timeoutMs = DEFAULT_TIMEOUT_MS): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
