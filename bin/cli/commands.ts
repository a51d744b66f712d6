/**
 * Registry of `idv` commands. To add one, write a `CliCommand` in its own module and add it here
 * (one line); help and dispatch pick it up.
 */
import { analyticsQueryCommand, analyticsReportCommand } from './analytics';
import { dlqListCommand, dlqRedriveCommand, dlqShowCommand } from './dlq';
import { resultsEraseCommand, resultsRefetchCommand, resultsRetentionCommand } from './erase';
import { eventsReplayCommand, eventsTestPatternCommand } from './events';
import { eventsTailCommand } from './events-tail';
import { resultsReconcileCommand } from './reconcile';
import { resultGetCommand } from './result';
import {
  resultsByReferenceCommand,
  resultsByTransactionCommand,
  resultsGetCommand,
  resultsListCommand,
  resultsTraceCommand,
} from './results';
import { secureLinkBulkCommand, secureLinkCreateCommand } from './secure-link';
import { setupCredentialsCommand } from './setup';
import {
  faceLinkPackageCommand,
  pollCommand,
  reasonsCommand,
  sdkTokenCommand,
  vogCreateCommand,
} from './simple';
import { simulatorTriggerCommand } from './simulator-trigger';
import type { CliCommand } from './types';
import { faceQualityCommand, faceVerifyCommand, idVerifyCommand, qualityCommand } from './uploads';

/** A spelling that is no longer a command, and what to type instead (a usage error, exit 2). */
export interface MovedCommand {
  readonly path: readonly string[];
  readonly message: string;
  /** The command whose `--help` the error points at. */
  readonly to: string;
}

/**
 * Old spellings. `idv result get` is not kept as an alias: it was one letter away from `idv results get`
 * (the stored copy), and fetching from the service removes the poll record the pipeline reads, so a
 * slip must not quietly do that.
 */
export const MOVED_COMMANDS: readonly MovedCommand[] = [
  {
    path: ['result', 'get'],
    message:
      '"idv result get" is now "idv service result get" (asks the service, which then removes the poll ' +
      'record); did you mean "idv results get" (the copy the pipeline stored)?',
    to: 'service result get',
  },
];

/** Every command, in the order `idv --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  secureLinkCreateCommand,
  secureLinkBulkCommand,
  sdkTokenCommand,
  idVerifyCommand,
  faceVerifyCommand,
  faceQualityCommand,
  qualityCommand,
  vogCreateCommand,
  reasonsCommand,
  faceLinkPackageCommand,
  pollCommand,
  resultGetCommand,
  resultsGetCommand,
  resultsListCommand,
  resultsByTransactionCommand,
  resultsByReferenceCommand,
  resultsTraceCommand,
  resultsReconcileCommand,
  resultsEraseCommand,
  resultsRetentionCommand,
  resultsRefetchCommand,
  dlqListCommand,
  dlqShowCommand,
  dlqRedriveCommand,
  eventsTestPatternCommand,
  eventsReplayCommand,
  eventsTailCommand,
  setupCredentialsCommand,
  simulatorTriggerCommand,
  analyticsQueryCommand,
  analyticsReportCommand,
];
