/**
 * A simulator in a process of its own, for tests that measure it from outside (its memory): started
 * with the options given as JSON in argv[2] (port 0 unless given), it prints `listening URL` and runs
 * until SIGTERM. `tsx test/support/simulator-child.ts '{"clientId":"a","clientSecret":"b"}'`.
 */
import { startSimulator } from '../../simulator/server';
import type { SimulatorOptions } from '../../simulator/types';

const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions;
const sim = await startSimulator(options);
process.stdout.write(`listening ${sim.url}\n`);
process.on('SIGTERM', () => {
  sim.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
