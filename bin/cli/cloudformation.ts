/**
 * The CloudFormation side of `--stack NAME`: `DescribeStacks` and its outputs. `bin/cli/main.ts` loads
 * this module only when a command is pointed at a stack, so every other command (and `--outputs-file`)
 * starts without the CloudFormation client.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { StackOutputsReader } from './deployment';

/**
 * A reader backed by CloudFormation `DescribeStacks`; credentials and region come from the standard AWS
 * chain. Errors name the stack and the SDK error's name, never a response body.
 */
export function cloudFormationReader(
  client: CloudFormationClient = new CloudFormationClient({}),
): StackOutputsReader {
  return {
    async outputsOf(stackName) {
      try {
        const answer = await client.send(new DescribeStacksCommand({ StackName: stackName }));
        const outputs = answer.Stacks?.[0]?.Outputs ?? [];
        return Object.fromEntries(
          outputs
            .filter((o) => o.OutputKey !== undefined && o.OutputValue !== undefined)
            .map((o) => [o.OutputKey!, o.OutputValue!]),
        );
      } catch (error) {
        const name = error instanceof Error ? error.name : 'error';
        // CloudFormation answers an unknown stack with a ValidationError ("Stack with id X does not exist").
        if (name === 'ValidationError') {
          throw new Error(
            `stack ${stackName} does not exist in this account and region (check AWS_PROFILE and AWS_REGION)`,
          );
        }
        if (name === 'CredentialsProviderError') {
          throw new Error('no AWS credentials: sign in (aws sso login --profile P) and set AWS_PROFILE');
        }
        throw new Error(`reading the outputs of stack ${stackName} failed: ${name}`);
      } finally {
        client.destroy();
      }
    },
  };
}
