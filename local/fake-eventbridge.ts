import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { isJsonObject } from '../shared/json-object';
import { AwsJsonError, type AwsJsonServer, startAwsJsonServer } from './aws-json-server';

/** One event accepted by the local EventBridge, shaped like the event EventBridge delivers to targets. */
export interface LocalEvent {
  id: string;
  /** ISO-8601 time of the event (the entry's `Time`, else when it was put). */
  time: string;
  source: string;
  'detail-type': string;
  /** The parsed `Detail` JSON object. */
  detail: Record<string, unknown>;
  eventBusName: string;
  resources: string[];
}

/** Called for every accepted event, in order. */
export type LocalEventListener = (event: LocalEvent) => void;

/** Options of the local EventBridge stand-in. */
export interface FakeEventBridgeOptions {
  region: string;
  accountId: string;
  host?: string;
  /** A unix socket to listen on instead of `host` (the local run puts its front before it). */
  socketPath?: string;
  /** Every accepted event is appended to this file as one JSON line. */
  eventsFile?: string;
}

/** The started stand-in: the server plus the captured events. */
export interface FakeEventBridge extends AwsJsonServer {
  entries(): LocalEvent[];
  on(listener: LocalEventListener): () => void;
}

/** PutEvents accepts at most this many entries per call (EventBridge quota). */
const MAX_ENTRIES = 10;

/**
 * Starts a local stand-in for `CreateEventBus`, `DescribeEventBus` and `PutEvents` (AWS JSON 1.1,
 * `X-Amz-Target: AWSEvents.*`). It keeps every accepted event in memory, tells listeners, and appends
 * each to `eventsFile` when given. Entries for a bus that does not exist fail the way AWS reports them.
 */
export async function startFakeEventBridge(options: FakeEventBridgeOptions): Promise<FakeEventBridge> {
  const arnOf = (name: string): string =>
    `arn:aws:events:${options.region}:${options.accountId}:event-bus/${name}`;
  const buses = new Map<string, string>([['default', arnOf('default')]]);
  const events: LocalEvent[] = [];
  const listeners = new Set<LocalEventListener>();

  const busName = (nameOrArn: unknown): string | undefined => {
    if (nameOrArn === undefined || nameOrArn === null || nameOrArn === '') return 'default';
    if (typeof nameOrArn !== 'string') return undefined;
    const name = nameOrArn.startsWith('arn:') ? nameOrArn.slice(nameOrArn.lastIndexOf('/') + 1) : nameOrArn;
    return buses.has(name) ? name : undefined;
  };

  const accept = (event: LocalEvent): void => {
    events.push(event);
    if (options.eventsFile) appendFileSync(options.eventsFile, `${JSON.stringify(event)}\n`, { mode: 0o600 });
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener (a test assertion, a console printer) must not fail the producer's PutEvents.
      }
    }
  };

  const server = await startAwsJsonServer(
    'AWSEvents',
    {
      CreateEventBus: (input) => {
        const name = input['Name'];
        if (typeof name !== 'string' || !/^[\w.\-/]{1,256}$/.test(name)) {
          throw new AwsJsonError('ValidationException', 'Name is invalid.');
        }
        if (buses.has(name))
          throw new AwsJsonError('ResourceAlreadyExistsException', `Event bus ${name} already exists.`);
        buses.set(name, arnOf(name));
        return { EventBusArn: arnOf(name) };
      },
      DescribeEventBus: (input) => {
        const name = busName(input['Name']);
        if (!name) throw new AwsJsonError('ResourceNotFoundException', 'Event bus does not exist.');
        return { Name: name, Arn: buses.get(name) };
      },
      PutEvents: (input) => {
        const entries = input['Entries'];
        if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_ENTRIES) {
          throw new AwsJsonError('ValidationException', `Entries must hold 1 to ${MAX_ENTRIES} entries.`);
        }
        const results = entries.map((entry: Record<string, unknown>) => {
          const name = busName(entry['EventBusName']);
          if (!name) return { ErrorCode: 'NotFoundException', ErrorMessage: 'Event bus does not exist.' };
          if (typeof entry['Source'] !== 'string' || typeof entry['DetailType'] !== 'string') {
            return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType are required.' };
          }
          const detail = parseDetail(entry['Detail']);
          if (!detail) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
          const id = randomUUID();
          accept({
            id,
            time: toIsoTime(entry['Time']),
            source: entry['Source'],
            'detail-type': entry['DetailType'],
            detail,
            eventBusName: name,
            resources: Array.isArray(entry['Resources']) ? entry['Resources'].map(String) : [],
          });
          return { EventId: id };
        });
        return {
          FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
          Entries: results,
        };
      },
    },
    options.socketPath !== undefined
      ? { socketPath: options.socketPath }
      : { host: options.host ?? '127.0.0.1' },
  );

  return {
    ...server,
    entries: () => [...events],
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function parseDetail(detail: unknown): Record<string, unknown> | undefined {
  if (typeof detail !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(detail);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK sends `Time` as epoch seconds; anything else means "now". */
function toIsoTime(time: unknown): string {
  return typeof time === 'number' && Number.isFinite(time)
    ? new Date(time * 1000).toISOString()
    : new Date().toISOString();
}
