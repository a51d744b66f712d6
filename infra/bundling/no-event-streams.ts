/**
 * Stands in for `@smithy/core/event-streams` in the function bundles (see `LAMBDA_BUNDLING` in
 * `infra/constructs/pipeline-function.ts`). The S3 client wires an event-stream codec into every client
 * for the one operation that answers with an event stream (`SelectObjectContent`), and the protocol layer
 * loads it for any such operation: ~15 KB of codec and marshallers in each bundle. The functions never
 * call such an operation. This module keeps the client's wiring (the config resolver, as the real one
 * does it) and refuses any use of an event stream with an error that names itself, rather than send or
 * parse one wrongly. Tests, the local run and the CLI are not bundled and load the real module.
 */

/** The error every event-stream use meets in a function bundle. */
export class EventStreamsNotBundledError extends Error {
  override readonly name = 'EventStreamsNotBundledError';
  constructor() {
    super('event streams are not in the function bundles (infra/bundling/no-event-streams.ts)');
  }
}

function refuse(): never {
  throw new EventStreamsNotBundledError();
}

/** A marshaller that refuses to serialise or deserialise an event stream. */
export const eventStreamSerdeProvider = (): { serialize: () => never; deserialize: () => never } => ({
  serialize: refuse,
  deserialize: refuse,
});

/** As the real resolver: the client's config gains the marshaller its provider makes. */
export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (input: T) => unknown }>(
  input: T,
): T & { eventStreamMarshaller: unknown } =>
  Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });

/** The protocol layer's event-stream serde: refused on construction. */
export class EventStreamSerde {
  constructor() {
    refuse();
  }
}
