/**
 * `idv … --stack NAME` reads the stack's outputs from CloudFormation: without a region, without
 * credentials, for a stack that does not exist, each failure names what is missing (never `failed: Error`).
 * The region and credential cases run the SDK's real provider chain with nothing configured.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cloudFormationReader, StackLookupError } from '../../bin/cli/cloudformation';

/** No AWS configuration at all: no variables, no files, no instance metadata. */
function nothingConfigured(): void {
  for (const name of Object.keys(process.env).filter((n) => n.startsWith('AWS_')))
    vi.stubEnv(name, undefined);
  vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/aws-config');
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/aws-credentials');
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
}

async function failureOf(read: Promise<unknown>): Promise<StackLookupError> {
  try {
    await read;
  } catch (error) {
    if (error instanceof StackLookupError) return error;
    throw error;
  }
  throw new Error('the stack was read');
}

describe('idv --stack NAME, reading the outputs', () => {
  beforeEach(nothingConfigured);
  afterEach(() => vi.unstubAllEnvs());

  it('names a missing region and how to set it', async () => {
    // Act
    const error = await failureOf(cloudFormationReader(new CloudFormationClient({})).outputsOf('S'));

    // Assess
    expect(error.missing).toBe('region');
    expect(error.message).toMatch(/^no AWS region: set AWS_REGION/);
  });

  it('names missing credentials and how to sign in', async () => {
    // Prepare
    vi.stubEnv('AWS_REGION', 'eu-west-1');

    // Act
    const error = await failureOf(cloudFormationReader(new CloudFormationClient({})).outputsOf('S'));

    // Assess
    expect(error.missing).toBe('credentials');
    expect(error.message).toMatch(/^no AWS credentials: sign in .*AWS_PROFILE/);
  });

  it.each<[string, Error, StackLookupError['missing'], RegExp]>([
    [
      'a stack that does not exist',
      Object.assign(new Error('Stack with id S does not exist'), { name: 'ValidationError' }),
      'stack',
      /^stack S does not exist in this account and region \(eu-west-1;/,
    ],
    [
      'a refused read',
      Object.assign(new Error('not authorized'), { name: 'AccessDenied' }),
      'permission',
      /may not read stack S \(cloudformation:DescribeStacks in eu-west-1\)/,
    ],
    [
      'an expired session',
      Object.assign(new Error('expired'), { name: 'ExpiredToken' }),
      'credentials',
      /^AWS refused the credentials \(ExpiredToken\)/,
    ],
    [
      'an unnamed SDK error',
      new Error('something'),
      'answer',
      /^reading the outputs of stack S in eu-west-1 failed \(an unnamed SDK error\)$/,
    ],
  ])('names %s', async (_, answer, missing, message) => {
    // Prepare
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    const client = new CloudFormationClient({});
    mockClient(client).on(DescribeStacksCommand).rejects(answer);

    // Act
    const error = await failureOf(cloudFormationReader(client).outputsOf('S'));

    // Assess
    expect(error.missing).toBe(missing);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('failed: Error');
  });
});
