/**
 * integ-runner's entry (files named `integ.*.ts` under test/integ): the pipeline against the simulator,
 * deployed, asserted and destroyed in the caller's account (`npm run integ`; docs/deploy.md, "Prove it in
 * your account"). The stack and the steps are in ./idv-pipeline-integ.ts.
 */
import { App } from 'aws-cdk-lib';
import { buildIntegTest } from './idv-pipeline-integ';

const app = new App();
buildIntegTest(app);
app.synth();
