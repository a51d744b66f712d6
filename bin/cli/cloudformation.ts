/**
 * The CloudFormation side of `--stack NAME`: `DescribeStacks` and its outputs. `bin/cli/main.ts` loads
 * this module only when a command is pointed at a stack, so every other command (and `--outputs-file`)
 * starts without the CloudFormation client.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { StackOutputsReader } from './deployment';

/**
 * Reading a stack's outputs failed for a reason the person at the terminal can fix: `missing` says what
 * (`region`, `credentials`, `stack`, `permission`, `connection`), the message how. It never carries an
 * AWS response body.
 */
export class StackLookupError extends Error {
  /** What is missing. */
  readonly missing: 'region' | 'credentials' | 'stack' | 'permission' | 'connection' | 'answer';

  constructor(missing: StackLookupError['missing'], message: string) {
    super(message);
    this.name = 'StackLookupError';
    this.missing = missing;
  }
}

/** How to name a profile, region and credentials, said once. */
const SIGN_IN =
  'sign in (aws sso login --profile P) and set AWS_PROFILE, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';

/**
 * A reader backed by CloudFormation `DescribeStacks`; credentials and region come from the standard AWS
 * chain. The region is resolved first, and each failure names what is missing (region, credentials,
 * stack, permission, connection); errors name the stack and the SDK error's name, never a response body.
 */
export function cloudFormationReader(
  client: CloudFormationClient = new CloudFormationClient({}),
): StackOutputsReader {
  return {
    async outputsOf(stackName) {
      try {
        const region = await regionOf(client);
        const answer = await describe(client, stackName, region);
        const outputs = answer.Stacks?.[0]?.Outputs ?? [];
        return Object.fromEntries(
          outputs
            .filter((o) => o.OutputKey !== undefined && o.OutputValue !== undefined)
            .map((o) => [o.OutputKey!, o.OutputValue!]),
        );
      } finally {
        client.destroy();
      }
    },
  };
}

async function regionOf(client: CloudFormationClient): Promise<string> {
  let region: string | undefined;
  try {
    region = await client.config.region();
  } catch {
    region = undefined;
  }
  if (!region) {
    throw new StackLookupError(
      'region',
      'no AWS region: set AWS_REGION (e.g. AWS_REGION=eu-west-1), or AWS_PROFILE to a profile with a region',
    );
  }
  return region;
}

async function describe(client: CloudFormationClient, stackName: string, region: string) {
  try {
    return await client.send(new DescribeStacksCommand({ StackName: stackName }));
  } catch (error) {
    const name = error instanceof Error ? error.name : 'error';
    const code = (error as { code?: string }).code;
    // CloudFormation answers an unknown stack with a ValidationError ("Stack with id X does not exist").
    if (name === 'ValidationError') {
      throw new StackLookupError(
        'stack',
        `stack ${stackName} does not exist in this account and region (${region}; check the name, AWS_PROFILE and AWS_REGION)`,
      );
    }
    if (name === 'CredentialsProviderError') {
      throw new StackLookupError('credentials', `no AWS credentials: ${SIGN_IN}`);
    }
    if (/AccessDenied|UnauthorizedOperation/.test(name)) {
      throw new StackLookupError(
        'permission',
        `these AWS credentials may not read stack ${stackName} (cloudformation:DescribeStacks in ${region})`,
      );
    }
    if (/ExpiredToken|InvalidClientTokenId|UnrecognizedClient|SignatureDoesNotMatch/.test(name)) {
      throw new StackLookupError('credentials', `AWS refused the credentials (${name}): ${SIGN_IN}`);
    }
    if (name === 'TimeoutError' || /^E[A-Z]+$/.test(code ?? '')) {
      throw new StackLookupError(
        'connection',
        `cannot reach CloudFormation in ${region} (${code ?? name}): check the network and AWS_REGION`,
      );
    }
    throw new StackLookupError(
      'answer',
      `reading the outputs of stack ${stackName} in ${region} failed (${name === 'Error' ? 'an unnamed SDK error' : name})`,
    );
  }
}
