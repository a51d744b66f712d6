/**
 * Registry of `idv` commands. To add one, write a `CliCommand` in its own module and add it here
 * (one line); help and dispatch pick it up.
 */
import { analyticsQueryCommand, analyticsReportCommand } from './analytics';
import { dlqListCommand, dlqRedriveCommand, dlqShowCommand } from './dlq';
import { resultsEraseCommand, resultsRefetchCommand, resultsRetentionCommand } from './erase';
import { eventsReplayCommand, eventsTestPatternCommand } from './events';
import { eventsTailCommand } from './events-tail';
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
