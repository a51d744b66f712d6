import { join } from 'node:path';

/** Where the run's lines go (`RunIo` fits). */
export interface RunLines {
  out(line: string): void;
  err(line: string): void;
}

/** The run's settings the banner states (`RunOptions` fits). */
export interface BannerOptions {
  once: boolean;
  timeoutSeconds: number;
  pollIntervalSeconds: number;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** The simulator's secure links wait for a person at their hosted page. */
  linksAwaitBrowser?: boolean;
}

/** Where this run's parts are, for the banner. */
export interface BannerPlaces {
  dataDir: string;
  /** The console's secret address. */
  consoleUrl: string;
  /** The service as the banner names it: the external URL, or the simulator's with its client id. */
  service: string;
  /** Base URL of the webhook endpoint. */
  webhooksUrl: string;
  /** The `--rule` rules. */
  rules: readonly { name: string; outputFile: string }[];
}

/** The opening lines: where everything is and how the run polls. */
export function printBanner(io: RunLines, options: BannerOptions, places: BannerPlaces): void {
  io.out(`Local pipeline running (data in ${places.dataDir})`);
  io.out(`  console:  ${places.consoleUrl}  (secret address: this run's owner only)`);
  io.out(`  service:  ${places.service}`);
  io.out(`  webhooks: ${places.webhooksUrl}/webhooks/<webhook secret>/result  (and …/upload)`);
  io.out(`  events:   ${join(places.dataDir, 'events.jsonl')}`);
  for (const rule of places.rules) io.out(`  rule:     ${rule.name} → ${rule.outputFile}`);
  if (options.linksAwaitBrowser) {
    io.out('  links:    secure links without mock-test wait for you at their link (--links-await-browser)');
  }
  const polling = options.once
    ? `one poll, then the queue is drained (at most ${options.timeoutSeconds}s)`
    : `poll every ${options.pollIntervalSeconds}s`;
  io.out(
    `  ${polling}; queue visibility ${options.visibilityTimeoutSeconds}s, DLQ after ${options.maxReceiveCount} receives`,
  );
}

/**
 * How to create more transactions against the simulator and query them, while the run goes on. Every
 * command runs the project's own `idv` (`npx --no-install`: never a download of a same-named package).
 */
export function printHints(
  io: RunLines,
  hints: { serviceUrl: string; clientId: string; clientSecret: string; dirFlag: string },
  linksAwaitBrowser = false,
): void {
  const { dirFlag } = hints;
  io.out('');
  io.out("Create more (another terminal; the credentials are this run's own, also in stack.json):");
  io.out(
    `  IDV_BASE_URL=${hints.serviceUrl} IDV_CLIENT_ID=${hints.clientId} IDV_CLIENT_SECRET=${hints.clientSecret} \\`,
  );
  io.out('    npx --no-install idv secure-link create --product IDV_STANDARD --mock-test APPROVED');
  io.out(`  npx --no-install idv simulator trigger DISAPPROVED --checks lostAndStolen=HIT --local${dirFlag}`);
  if (linksAwaitBrowser) {
    io.out(
      'Links:        a secure link without --mock-test waits for you at its link (pick the outcome there)',
    );
  } else {
    io.out('Links:        without --mock-test a link completes by itself; to choose at the link yourself:');
    io.out('              npm start -- --links-await-browser');
  }
  io.out(`Query them:   npx --no-install idv results list --local${dirFlag}`);
  io.out(`              npx --no-install idv results get RESULT_ID --local${dirFlag} --out ./result`);
  io.out('Stop:         Ctrl-C');
  io.out('');
}

/** Says how many queued messages an earlier run left behind and this one put back. */
export function reportRestored(io: RunLines, restored: Record<string, number>): void {
  const total = Object.values(restored).reduce((sum, n) => sum + n, 0);
  if (total > 0) {
    io.err(
      `↺ ${total} queued message(s) of the earlier run put back into their queues (queue-journal.jsonl)`,
    );
  }
}

/** Says what the simulator kept of the earlier run (its state in the data directory), and any repair. */
export function reportSimulatorRestored(
  io: RunLines,
  restored: { transactions: number; open: number; results: number; notes: string[] } | undefined,
): void {
  if (!restored) return;
  for (const note of restored.notes) io.err(`↺ ${note}`);
  if (restored.transactions > 0) {
    io.err(
      `↺ the simulator kept the earlier run's ${restored.transactions} transaction(s): ${restored.open} still open (they complete as before), ${restored.results} result(s) retrievable`,
    );
  }
}

/** A reporter of a background task's failure: its error's name and message, nothing else. */
export function reportError(io: RunLines, what: string) {
  return (error: unknown) =>
    io.err(`${what} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : 'error'}`);
}
