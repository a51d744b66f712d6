/**
 * X-Ray tracing for the functions (Powertools Tracer): SDK clients and `fetch` calls become subsegments,
 * each handler invocation a `## <function>` subsegment with the ColdStart and Service annotations, each
 * queue record a `### record` subsegment annotated with its `resultId`/`transactionId`.
 *
 * What may enter a trace is deliberately narrow: annotations are only `resultId` and `transactionId` (and
 * only well-formed ones, so free text from a webhook body can never pass), and the only metadata is an
 * error's name, status and code — never its message, a response, an event or a result, which may carry
 * personal data. Responses and errors are not captured automatically (no decorator or middleware here).
 *
 * Where tracing is off — outside Lambda (no `AWS_EXECUTION_ENV`: tests, the local run) or with
 * `POWERTOOLS_TRACE_ENABLED=false` — {@link createTracer} gives {@link NO_TRACER} and the X-Ray SDK is
 * never loaded: loading it starts a CLS namespace whose async hooks (with a destroy hook) run for every
 * promise of the process, traced or not (measured with `npm run bench -- --tracing`). Every
 * call below is then harmless.
 */
import type { Tracer as PowertoolsTracer } from '@aws-lambda-powertools/tracer';
import { RESULT_ID_PATTERN } from './api/result-id';
import { METRICS } from './metrics-names';

/** What the functions use of Powertools' Tracer (so a tracer that does nothing can stand in for it). */
export type Tracer = Pick<
  PowertoolsTracer,
  | 'getSegment'
  | 'setSegment'
  | 'annotateColdStart'
  | 'addServiceNameAnnotation'
  | 'putAnnotation'
  | 'putMetadata'
  | 'captureAWSv3Client'
>;

/** The tracer where tracing is off: no segment, nothing recorded, clients returned as they are. */
export const NO_TRACER: Tracer = Object.freeze({
  getSegment: () => undefined,
  setSegment: () => undefined,
  annotateColdStart: () => undefined,
  addServiceNameAnnotation: () => undefined,
  putAnnotation: () => undefined,
  putMetadata: () => undefined,
  captureAWSv3Client: <T>(client: T) => client,
});

/**
 * Whether Powertools' Tracer would be disabled by this environment: `POWERTOOLS_TRACE_ENABLED` is
 * `false` (any case), or there is no `AWS_EXECUTION_ENV` (not in Lambda). Its other reasons (SAM local,
 * the Amplify mock) are left to it: there it is loaded and disables itself.
 */
export function tracingIsOff(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === 'false' || !env.AWS_EXECUTION_ENV;
}

/** The identifiers that may become annotations (searchable in the X-Ray console). */
export const TRACE_ANNOTATION_KEYS = ['resultId', 'transactionId'] as const;

/** Identifiers of one message or request, as far as they are known. */
export type TraceIds = Partial<Record<(typeof TRACE_ANNOTATION_KEYS)[number], unknown>>;

/**
 * One tracer per function, built at module scope (`await createTracer()`). Powertools' Tracer, and with
 * it the X-Ray SDK, is imported only where tracing is on; the bundle holds it either way.
 */
export async function createTracer(env: NodeJS.ProcessEnv = process.env): Promise<Tracer> {
  if (tracingIsOff(env)) return NO_TRACER;
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  return new Tracer({ serviceName: METRICS.serviceName });
}

/**
 * Annotates the current subsegment with the well-formed identifiers among `ids`. Anything else — a
 * value that is not an id-shaped string, another key — is ignored, so no caller can leak a name here.
 */
export function annotateIds(tracer: Tracer, ids: TraceIds): void {
  for (const key of TRACE_ANNOTATION_KEYS) {
    const value = ids[key];
    if (typeof value === 'string' && RESULT_ID_PATTERN.test(value)) tracer.putAnnotation(key, value);
  }
}

/** What a trace may say about an error: its name and, for service and AWS errors, status and code. */
export function traceErrorFacts(error: unknown): Record<string, string | number> {
  if (!(error instanceof Error)) return { name: 'NonError' };
  const facts: Record<string, string | number> = { name: error.name };
  const extra = error as { status?: unknown; code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  if (typeof extra.status === 'number') facts['status'] = extra.status;
  else if (typeof extra.$metadata?.httpStatusCode === 'number')
    facts['status'] = extra.$metadata.httpStatusCode;
  if (typeof extra.code === 'number' || typeof extra.code === 'string') facts['code'] = extra.code;
  return facts;
}

/**
 * Runs `work` in a subsegment named `name` (what Powertools' `captureLambdaHandler` does, without middy or
 * decorators, and without capturing the response or the error message). `ids` are annotated on it; an
 * error flags the subsegment and leaves only {@link traceErrorFacts} as metadata.
 */
export async function inSubsegment<T>(
  tracer: Tracer,
  name: string,
  work: () => Promise<T>,
  options: { ids?: TraceIds; handler?: boolean } = {},
): Promise<T> {
  const parent = tracer.getSegment();
  const subsegment = parent?.addNewSubsegment(name);
  if (subsegment) tracer.setSegment(subsegment);
  if (options.handler) {
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
  }
  if (options.ids) annotateIds(tracer, options.ids);
  try {
    return await work();
  } catch (error) {
    subsegment?.addErrorFlag();
    tracer.putMetadata('error', traceErrorFacts(error));
    throw error;
  } finally {
    subsegment?.close();
    if (parent) tracer.setSegment(parent);
  }
}

/**
 * The identifiers of a queue message body for annotations, read without validating the message (that is
 * the core's job, and a malformed message still deserves a traced failure). Never throws.
 */
export function queueMessageIds(body: string): TraceIds {
  try {
    const message: unknown = JSON.parse(body);
    if (!message || typeof message !== 'object') return {};
    const { resultId, transactionId } = message as TraceIds;
    return { resultId, transactionId };
  } catch {
    return {};
  }
}
