import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { EnvironmentConfigError, loadEnvironments } from '../infra/config';
import { IdvPipelineValidationError } from '../infra/idv-pipeline-settings';
import { PipelineStack, stackName } from '../infra/pipeline-stack';
import { ConfigError } from '../shared/errors';

/**
 * CDK app: one `IdvPipeline-<env>` stack per environment of the `environments` context in cdk.json.
 * `-c env=staging` selects one; without it (or with `-c env=all`) every environment is synthesised,
 * which is what `npm run synth` and CI do. cdk-nag's AwsSolutions and Serverless checks run on every
 * synth and fail it on any unacknowledged finding (each acknowledgement carries its reason). The
 * pipeline itself refuses placeholder addresses (service URL, alarm e-mail) in production and warns
 * elsewhere; `-c allowPlaceholders=true` (only `npm run synth`, a template check that deploys nothing)
 * turns the refusal into a warning.
 */
function synth(): void {
  const app = new App();
  const selected = app.node.tryGetContext('env') as string | undefined;
  for (const config of loadEnvironments(app.node.tryGetContext('environments'), selected)) {
    new PipelineStack(app, stackName(config.name), {
      config,
      description: `Identity verification results pipeline (${config.name})`,
      // Environment-agnostic unless pinned in cdk.json: synth needs no AWS credentials or lookups.
      ...(config.account !== undefined || config.region !== undefined
        ? { env: { account: config.account, region: config.region } }
        : {}),
    });
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  app.synth();
}

try {
  synth();
} catch (error) {
  // A configuration mistake (`-c env=stagin`, production without retention) is the user's to fix: the
  // message says what, a stack trace around it only hides it. Anything else keeps its trace.
  const usage =
    error instanceof EnvironmentConfigError ||
    error instanceof IdvPipelineValidationError ||
    error instanceof ConfigError;
  if (!usage) throw error;
  process.stderr.write(`idv-pipeline: ${error.message}\n`);
  process.exitCode = 1;
}
