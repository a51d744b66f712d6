import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { buildApp } from 'fauxqs';
import S3rver from 's3rver';
import AWSAccount from 's3rver/lib/models/account.js';
import { sealTornLine } from './atomic-file';
import { newRunCredentials } from './aws-auth';
import { startAwsFront } from './aws-front';
import { closeServer } from './aws-json-server';
import { startChunkGc } from './chunk-gc';
import type { LocalAwsService } from './client-config';
import { compactDynamoData } from './dynamo-compact';
import { type LocalEvent, type LocalEventListener, startFakeEventBridge } from './fake-eventbridge';
import { startFakeSecretsManager } from './fake-secrets-manager';
import { restrictToOwner } from './owner-only';
import { type JournaledStore, type MessageFactory, QUEUE_JOURNAL, QueueJournal } from './queue-journal';
import { hardenS3Store, repairS3Directory } from './s3-store';
import { newSocketDir, removeDeadSocketDirs } from './socket-dirs';

/** Options of {@link startLocalAws}. */
export interface LocalAwsOptions {
  /**
   * Directory for persistent state (DynamoDB LevelDB files, S3 objects, secrets, `events.jsonl`).
   * Absent: DynamoDB and secrets in memory, S3 in a temporary directory removed on close.
   * SQS (fauxqs) is always in memory.
   */
  dataDir?: string;
  /**
   * Interface the emulators' authenticating fronts listen on. @default '127.0.0.1'
   * The emulators themselves listen on unix sockets in an owner-only directory.
   */
  host?: string;
  /** Where accepted events are appended as JSON lines. @default `<dataDir>/events.jsonl` when dataDir is set */
  eventsFile?: string;
}

/** A running set of local AWS emulators. */
export interface LocalAws {
  readonly region: string;
  /** This run's random key pair: every request to an endpoint must be signed with it (else 403). */
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly endpoints: Record<LocalAwsService, string>;
  /**
   * Environment variables that point SDK v3 clients created without an explicit endpoint at these
   * emulators: region, credentials, `AWS_ENDPOINT_URL_*` and `IDV_S3_FORCE_PATH_STYLE=true`.
   */
  env(): Record<string, string>;
  /** What the start repaired in the data directory after a crash, one line each (none when all was whole). */
  readonly repairs: readonly string[];
  /** Events accepted by the local EventBridge since start. */
  readonly events: { entries(): LocalEvent[]; on(listener: LocalEventListener): () => void };
  /**
   * With a data directory: puts back every message the queue journal holds that was never consumed
   * (call once the queues exist, before anything receives). Returns the count per queue name.
   */
  restoreQueues(): Record<string, number>;
  /** Stops every emulator (and removes the temporary S3 directory when no dataDir was given). */
  close(): Promise<void>;
}

/** The data directory's append-only journals (paths under it), whose torn last line a start seals. */
const APPEND_ONLY_JOURNALS = [
  QUEUE_JOURNAL,
  'events.jsonl',
  'trace.jsonl',
  join('analytics', 'incoming.jsonl'),
];

/** Fake account id used in ARNs; matches the one fauxqs puts in queue URLs and ARNs. */
export const LOCAL_ACCOUNT_ID = '000000000000';
const LOCAL_REGION = 'us-east-1';

const ENDPOINT_VARIABLES: Record<LocalAwsService, string> = {
  dynamodb: 'AWS_ENDPOINT_URL_DYNAMODB',
  s3: 'AWS_ENDPOINT_URL_S3',
  sqs: 'AWS_ENDPOINT_URL_SQS',
  secretsManager: 'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  eventBridge: 'AWS_ENDPOINT_URL_EVENTBRIDGE',
};

/**
 * Starts, in this process, the local stand-ins of every AWS service the pipeline uses: DynamoDB
 * (dynalite), S3 (s3rver), SQS (fauxqs) and small fakes of Secrets Manager and EventBridge. None of them
 * listens on a port: each listens on a unix socket in a new owner-only (0700) directory, and a front on
 * a free port of `host` forwards to it only the requests signed with this run's random key pair (see
 * `aws-front.ts`), so another user of the machine reaches nothing. If one fails to start, the ones
 * already started are stopped and the error names it.
 */
export async function startLocalAws(options: LocalAwsOptions = {}): Promise<LocalAws> {
  const host = options.host ?? '127.0.0.1';
  const dataDir = options.dataDir;
  const closers: (() => Promise<void>)[] = [];
  if (dataDir) {
    // Owner-only whatever the umask: every file the emulators, journals and stores create in the data
    // directory (it can hold identity documents). The earlier umask comes back when the emulators stop.
    let umask: number | undefined;
    try {
      umask = process.umask(0o077);
    } catch {
      // A worker thread may not set the process's umask: what it creates is narrowed when it stops.
    }
    closers.push(async () => {
      if (umask === undefined) restrictToOwner(dataDir);
      else process.umask(umask);
    });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    restrictToOwner(dataDir);
  }
  // Socket directories of runs that ended without closing (a SIGKILL) go first.
  await removeDeadSocketDirs();
  const credentials = newRunCredentials();
  /** What the start repaired in the data directory, one line each (a crash left it). */
  const repairs: string[] = [];
  // Bodies stream through this process's emulators and fronts: their dead chunks are collected promptly.
  const stopChunkGc = startChunkGc();
  closers.push(async () => stopChunkGc());
  // mkdtemp creates the directory 0700. Not in the data directory: a socket path must stay short.
  const sockets = newSocketDir();
  closers.push(async () => rmSync(sockets, { recursive: true, force: true }));
  const socket = (name: string): string => join(sockets, `${name}.sock`);
  /** Puts the authenticating front before an emulator listening on `path`; returns the front's URL. */
  const front = async (path: string): Promise<string> => {
    const started = await startAwsFront({ socketPath: path, credentials, host });
    closers.push(() => started.close());
    return started.endpoint;
  };
  if (dataDir) {
    // The append-only journals: a line a kill tore is sealed, so the next append is not lost with it.
    const rulesDir = join(dataDir, 'rules');
    const ruleOutputs = existsSync(rulesDir)
      ? readdirSync(rulesDir)
          .filter((name) => name.endsWith('.jsonl'))
          .map((name) => join('rules', name))
      : [];
    for (const name of [...APPEND_ONLY_JOURNALS, ...ruleOutputs]) {
      if (sealTornLine(join(dataDir, name)))
        repairs.push(`${name}: sealed its last line, torn by a crash (it is skipped when read)`);
    }
  }
  const journal = dataDir ? new QueueJournal(join(dataDir, QUEUE_JOURNAL)) : undefined;
  let sqsStore: (JournaledStore & { constructor: { createMessage: MessageFactory } }) | undefined;
  const closeAll = async (): Promise<void> => {
    // Reverse start order; keep going when one fails so no server is left listening.
    const errors: unknown[] = [];
    for (const close of closers.splice(0).reverse()) {
      await close().catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw new AggregateError(errors, 'Some local AWS emulators did not stop cleanly');
  };

  const step = async <T>(name: string, start: () => Promise<T>): Promise<T> => {
    try {
      return await start();
    } catch (error) {
      await closeAll().catch(() => undefined);
      throw new Error(
        `Local ${name} emulator did not start: ${error instanceof Error ? error.message : error}`,
        {
          cause: error,
        },
      );
    }
  };

  const dynamodb = await step('DynamoDB', async () => {
    if (dataDir) mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
    // Tables become ACTIVE almost at once, so set-up code does not wait half a second per table.
    const server = dynalite({ path: dataDir ? join(dataDir, 'dynamodb') : undefined, createTableMs: 1 });
    await listen(server, socket('dynamodb'));
    // After the emulator closed its LevelDB: deleted items (an erasure) leave no bytes in its files.
    if (dataDir) closers.push(() => compactDynamoData(join(dataDir, 'dynamodb')));
    closers.push(() => closeServer(server));
    return front(socket('dynamodb'));
  });

  const s3 = await step('S3', async () => {
    const directory = dataDir ? join(dataDir, 's3') : mkdtempSync(join(tmpdir(), 'idv-s3-'));
    mkdirSync(directory, { recursive: true });
    // The front has checked every request's SigV4 signature, and what it forwards is not byte for byte
    // the signed request (hop-by-hop headers go, a chunked body gets a length): s3rver checks only that
    // the key id is one it knows (allowMismatchedSignatures; s3rver 3 did not check v4 signatures at all).
    // What a crash left is repaired first (each repair named); then every write is atomic.
    if (dataDir) repairs.push(...(await repairS3Directory(directory)).map((line) => `S3 emulator: ${line}`));
    const s3rver = new S3rver({ silent: true, directory, allowMismatchedSignatures: true });
    hardenS3Store(s3rver.store);
    AWSAccount.DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
    closers.push(async () => AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(credentials.accessKeyId));
    const server = await s3rver.listen(socket('s3'));
    closers.push(async () => {
      await closeServer(server);
      if (!dataDir) rmSync(directory, { recursive: true, force: true });
    });
    return front(socket('s3'));
  });

  const sqs = await step('SQS', async () => {
    // buildApp instead of startFauxqs: startFauxqs always listens on 0.0.0.0, we want loopback only.
    const stores = await fauxqsStores();
    if (dataDir) {
      // fauxqs keeps queues in memory: the journal makes them survive a crash (see queue-journal.ts).
      stores.sqsStore.spy = journal!.spy;
    }
    sqsStore = stores.sqsStore;
    const app = buildApp({ logger: false, defaultRegion: LOCAL_REGION, stores });
    await app.listen({ path: socket('sqs') });
    closers.push(() => app.close());
    // Queue URLs name the host the request was sent to: the front (it forwards the Host header).
    return front(socket('sqs'));
  });

  const secretsManager = await step('Secrets Manager', async () => {
    const server = await startFakeSecretsManager({
      region: LOCAL_REGION,
      accountId: LOCAL_ACCOUNT_ID,
      socketPath: socket('secrets-manager'),
      file: dataDir ? join(dataDir, 'secrets.json') : undefined,
    });
    closers.push(() => server.close());
    return front(socket('secrets-manager'));
  });

  const eventBridge = await step('EventBridge', async () => {
    const server = await startFakeEventBridge({
      region: LOCAL_REGION,
      accountId: LOCAL_ACCOUNT_ID,
      socketPath: socket('eventbridge'),
      eventsFile: options.eventsFile ?? (dataDir ? join(dataDir, 'events.jsonl') : undefined),
    });
    closers.push(() => server.close());
    const endpoint = await front(socket('eventbridge'));
    return {
      entries: () => server.entries(),
      on: (listener: LocalEventListener) => server.on(listener),
      endpoint,
    };
  });

  const endpoints: Record<LocalAwsService, string> = {
    dynamodb,
    s3,
    sqs,
    secretsManager,
    eventBridge: eventBridge.endpoint,
  };
  return {
    region: LOCAL_REGION,
    repairs,
    credentials: { ...credentials },
    endpoints,
    env: () => ({
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      ...Object.fromEntries(
        Object.entries(ENDPOINT_VARIABLES).map(([service, variable]) => [
          variable,
          endpoints[service as LocalAwsService],
        ]),
      ),
      IDV_S3_FORCE_PATH_STYLE: 'true',
    }),
    events: { entries: () => eventBridge.entries(), on: (listener) => eventBridge.on(listener) },
    restoreQueues: () =>
      journal && sqsStore
        ? journal.restore(sqsStore, (body) => sqsStore!.constructor.createMessage(body))
        : {},
    close: closeAll,
  };
}

/**
 * fauxqs builds queue URLs as `http://sqs.<region>.localhost:<port>/…` unless its store's `host` is
 * empty. Node cannot resolve that name, and SDK clients that get their endpoint from
 * `AWS_ENDPOINT_URL_SQS` (the handlers) send requests to the queue URL's host. With an empty host the
 * queue URL is the endpoint itself (`http://127.0.0.1:<port>/000000000000/<name>`). The store classes
 * are not in the package's export map, hence the import by file URL next to its entry point.
 */
async function fauxqsStores() {
  const entry = import.meta.resolve('fauxqs');
  const load = (path: string) => import(new URL(path, entry).href);
  const [{ SqsStore }, { SnsStore }, { S3Store }] = await Promise.all([
    load('./sqs/sqsStore.js'),
    load('./sns/snsStore.js'),
    load('./s3/s3Store.js'),
  ]);
  const sqsStore = new SqsStore();
  sqsStore.host = '';
  sqsStore.region = LOCAL_REGION;
  return { sqsStore, snsStore: new SnsStore(), s3Store: new S3Store() };
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
