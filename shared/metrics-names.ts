/**
 * CloudWatch metric names the functions emit (Powertools Metrics, EMF) and the alarms in `infra/` watch.
 * Kept in one place so an alarm can never watch a metric nobody emits.
 */
export const METRICS = {
  namespace: 'IdvPipeline',
  /**
   * Powertools `service` dimension: the default, and the app's. A pipeline composed without a name prefix
   * sets its own in `POWERTOOLS_SERVICE_NAME` (`serviceNameVariable`), so that two pipelines in one account
   * and region never share a custom metric (docs/construct.md).
   */
  serviceName: 'idv-pipeline',
  /** The variable the functions read their `service` dimension from (Powertools' own name). */
  serviceNameVariable: 'POWERTOOLS_SERVICE_NAME',
  /** Name of the extra dimension carrying the environment (`staging` | `production`). */
  environmentDimension: 'environment',
  names: {
    /** poll: number of pending poll records seen in one run (Count). */
    pendingResults: 'PendingResults',
    /** poll: age in seconds of the oldest pending poll record (Seconds); results left waiting risk deletion. */
    oldestPendingAgeSeconds: 'OldestPendingAgeSeconds',
    /** poll: a poll run that failed to reach the service or to enqueue (Count). */
    pollFailures: 'PollFailures',
    /** fetch-result: results stored (Count). */
    resultsStored: 'ResultsStored',
    /** fetch-result: results recorded as UNAVAILABLE after a 404 (Count). */
    resultsUnavailable: 'ResultsUnavailable',
    /**
     * fetch-result: verdicts the service changed after they were stored, stored as a new version and
     * announced as VerificationResultChanged (Count).
     */
    resultsChanged: 'ResultsChanged',
    /** fetch-result: messages skipped because the result was already stored and announced (Count). */
    duplicatesSkipped: 'DuplicatesSkipped',
    /**
     * fetch-result: results stored or recorded without the service's polling record (no product, no
     * completion time: `completedKnown: false`), because the record was already gone (Count).
     */
    resultsWithoutPollRecord: 'ResultsWithoutPollRecord',
    /** fetch-result: batches whose one poll call for metadata failed; their results went on without it (Count). */
    pollMetadataFailures: 'PollMetadataFailures',
    /** webhook: deliveries accepted and enqueued (Count). */
    webhooksAccepted: 'WebhooksAccepted',
  },
} as const;
