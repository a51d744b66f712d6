/**
 * What a local run takes and what it hosts: the options of `npm start`, where its output goes, and the
 * simulator and Lambda handlers the entry point (`bin/start.ts`) hands in, so that the runtime library
 * (local/runner.ts) depends on neither the simulator nor the functions.
 */
import type { ScheduledEvent } from 'aws-lambda';
import type { ApiGatewayHandler } from './api-gateway';
import type { SqsHandler } from './sqs-event-source';

/** Options of one local run (the flags of `npm start`). */
export interface RunOptions {
  dataDir: string;
  /** Demo transactions to create; only against the simulator unless given explicitly. */
  demo: number;
  /** Pause between demo transactions. */
  demoSpacingMs: number;
  /**
   * One demo transaction fails on purpose (its result reaches the DLQ, a redrive stores it): only against
   * the simulator, with at least two demo transactions. @default false
   */
  demoFailure?: boolean;
  exitWhenDone: boolean;
  once: boolean;
  pollIntervalSeconds: number;
  /** Webhook endpoint port; 0 picks a free one. */
  port: number;
  /**
   * Port of the simulator; 0 picks a free one. @default {@link SIMULATOR_PORT}, or a free one when it is
   * taken (a port given is that port or an error)
   */
  simulatorPort?: number;
  /** External service instead of the simulator. */
  serviceUrl?: string;
  clientId?: string;
  clientSecret?: string;
  environment: 'staging' | 'production';
  retentionDays: number;
  /** Limit of `--exit-when-done` and `--once`. */
  timeoutSeconds: number;
  /** Simulator: delay of transactions without `mock-test`; `linksAwaitBrowser`: secure links wait for a person. */
  completionDelayMs: number;
  linksAwaitBrowser?: boolean;
  seed?: number;
  /** Handler log level (Powertools). */
  logLevel: string;
  /** Queue settings of the local stack. */
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** fetch-result invocations at once. @default 1 */
  concurrency?: number;
  /** The service's rate: the run's pace (`IDV_SERVICE_REQUESTS_PER_SECOND`). @default none */
  serviceRate?: number;
  /** `--rule` files: local EventBridge rules applied to every event. @default [] */
  ruleFiles?: string[];
}

/** Where output goes (stdout lines; the summary is always the last). */
export interface RunIo {
  out(line: string): void;
  err(line: string): void;
  /** Resolves when the user asks to stop (Ctrl-C). */
  interrupted: Promise<void>;
}

/** The simulator's port when `--simulator-port` does not say: fixed, so printed commands stay valid. */
export const SIMULATOR_PORT = 4010;

/** What the local run needs of a simulator it starts (`simulator/server.ts` `startSimulator` fits). */
export interface LocalSimulator {
  url: string;
  control: {
    webhooksIdle(): Promise<void>;
    /** The simulator's per-transaction result fault (needed only for the demo failure). */
    setResultFault?(fault: { customerReference: string; kind: 'dataNotBase64'; fetches: number }): void;
    resultIdsOf?(transactionId: string): string[];
  };
  close(): Promise<void>;
  /** What the simulator found of the earlier run's state in the data directory. */
  restored?: { transactions: number; open: number; results: number; notes: string[] };
}

/** Options the local run hands to the simulator it starts. */
export interface LocalSimulatorOptions extends Pick<RunOptions, 'linksAwaitBrowser'> {
  clientId: string;
  clientSecret: string;
  port: number;
  environment: 'staging' | 'production';
  completionDelayMs: number;
  resultWebhookUrl: string;
  uploadWebhookUrl: string;
  seed?: number;
  /** Tokens are checked for the scope each endpoint needs, as the service does. */
  enforceScopes?: boolean;
  /** Needed on the simulator's `/__sim/*` routes (its port is reachable by every user of the machine). */
  controlSecret: string;
  /** Where the simulator keeps its state across restarts: `<data-dir>/simulator`. */
  stateDir: string;
}

/** The three Lambda handlers, as their modules export them. */
export interface PipelineHandlers {
  webhook: ApiGatewayHandler;
  poll: (event: ScheduledEvent, context: unknown) => Promise<unknown>;
  fetchResult: SqsHandler;
}

/**
 * What the local run hosts, handed in by the entry point (`bin/start.ts`) so that the runtime library
 * depends on neither the simulator nor the functions. `loadHandlers` is called after the functions'
 * environment is set, exactly like a Lambda cold start reads its environment at import.
 */
export interface LocalModules {
  startSimulator(options: LocalSimulatorOptions): Promise<LocalSimulator>;
  loadHandlers(): Promise<PipelineHandlers>;
}
