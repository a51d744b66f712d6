/**
 * The CloudFormation side of `--stack NAME`: `DescribeStacks` and its outputs. The client package,
 * `@aws-sdk/client-cloudformation`, is loaded only when a command is pointed at a stack, so every other
 * command (and `--outputs-file`) starts without it.
 */
import type { StackOutputsReader } from './deployment';

/** The slice of `@aws-sdk/client-cloudformation` used here. */
interface CloudFormationModule {
  CloudFormationClient: new (
    config: object,
  ) => {
    send(
      command: unknown,
    ): Promise<{ Stacks?: { Outputs?: { OutputKey?: string; OutputValue?: string }[] }[] }>;
    destroy(): void;
  };
  DescribeStacksCommand: new (input: { StackName: string }) => unknown;
}

/** Thrown when `--stack` is used where the CloudFormation client is not installed. */
export class CloudFormationClientMissingError extends Error {
  constructor(options?: ErrorOptions) {
    super(
      '--stack reads the stack with @aws-sdk/client-cloudformation, which is not installed: install it, or ' +
        'pass --outputs-file FILE (from cdk deploy --outputs-file FILE)',
      options,
    );
    this.name = 'CloudFormationClientMissingError';
  }
}

// A variable, so that neither TypeScript nor the bundler requires the package where it is absent.
const CLIENT_PACKAGE = '@aws-sdk/client-cloudformation';

/** A reader backed by CloudFormation `DescribeStacks` (credentials and region from the standard AWS chain). */
export async function cloudFormationReader(): Promise<StackOutputsReader> {
  let sdk: CloudFormationModule;
  try {
    sdk = (await import(CLIENT_PACKAGE)) as CloudFormationModule;
  } catch (cause) {
    throw new CloudFormationClientMissingError({ cause });
  }
  return {
    async outputsOf(stackName) {
      const client = new sdk.CloudFormationClient({});
      try {
        const answer = await client.send(new sdk.DescribeStacksCommand({ StackName: stackName }));
        const outputs = answer.Stacks?.[0]?.Outputs ?? [];
        return Object.fromEntries(
          outputs
            .filter((o) => o.OutputKey !== undefined && o.OutputValue !== undefined)
            .map((o) => [o.OutputKey!, o.OutputValue!]),
        );
      } catch (error) {
        // ValidationError "Stack with id X does not exist": say it with the flag the user typed.
        const name = error instanceof Error ? error.name : 'error';
        if (name === 'ValidationError') {
          throw new Error(
            `stack ${stackName} does not exist in this account and region (check AWS_PROFILE, AWS_REGION)`,
          );
        }
        throw new Error(`reading the outputs of stack ${stackName} failed: ${name}`);
      } finally {
        client.destroy();
      }
    },
  };
}
