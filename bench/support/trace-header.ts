/**
 * X-Ray trace headers as the Lambda runtime hands them to a traced invocation (`_X_AMZN_TRACE_ID`):
 * `Root=1-<8 hex seconds>-<24 hex>;Parent=<16 hex>;Sampled=1`. The size bench's traced worker sets a
 * fresh one before each result so the tracer records real segments (docs/benchmarks.md, "Tracing").
 */
import { randomBytes } from 'node:crypto';

/** A new sampled trace header. */
export function newTraceHeader(now = Date.now()): string {
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0');
  return `Root=1-${seconds}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=1`;
}
