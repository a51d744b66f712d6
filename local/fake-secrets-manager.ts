import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { AwsJsonError, type AwsJsonServer, startAwsJsonServer } from './aws-json-server';

interface StoredSecret {
  arn: string;
  name: string;
  description?: string;
  versionId: string;
  secretString?: string;
  secretBinary?: string;
  createdDate: number;
  lastChangedDate: number;
}

/** Options of the local Secrets Manager stand-in. */
export interface FakeSecretsManagerOptions {
  region: string;
  accountId: string;
  host?: string;
  /** JSON file holding the secrets across restarts; in memory only when absent. */
  file?: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/**
 * Starts a local stand-in for the few Secrets Manager operations the pipeline uses (`CreateSecret`,
 * `GetSecretValue`, `PutSecretValue`, `DescribeSecret`, `GetRandomPassword`), speaking AWS JSON 1.1.
 * Secret values never appear in its errors.
 */
export async function startFakeSecretsManager(options: FakeSecretsManagerOptions): Promise<AwsJsonServer> {
  const secrets = new Map<string, StoredSecret>(load(options.file).map((secret) => [secret.name, secret]));
  const persist = (): void => {
    if (options.file)
      writeFileSync(options.file, JSON.stringify([...secrets.values()], null, 2), { mode: 0o600 });
  };

  const find = (input: Record<string, unknown>): StoredSecret => {
    const id = requireString(input, 'SecretId');
    const secret = secrets.get(id) ?? [...secrets.values()].find((candidate) => candidate.arn === id);
    if (!secret)
      throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };

  const setValue = (secret: StoredSecret, input: Record<string, unknown>): void => {
    const secretString = optionalString(input, 'SecretString');
    const secretBinary = optionalString(input, 'SecretBinary');
    if (secretString === undefined && secretBinary === undefined) {
      throw new AwsJsonError(
        'InvalidRequestException',
        'You must provide either SecretString or SecretBinary.',
      );
    }
    secret.secretString = secretString;
    secret.secretBinary = secretBinary;
    secret.versionId = optionalString(input, 'ClientRequestToken') ?? randomUUID();
    secret.lastChangedDate = Date.now() / 1000;
  };

  return startAwsJsonServer(
    'secretsmanager',
    {
      CreateSecret: (input) => {
        const name = requireString(input, 'Name');
        if (secrets.has(name)) {
          throw new AwsJsonError(
            'ResourceExistsException',
            `The operation failed because the secret ${name} already exists.`,
          );
        }
        const now = Date.now() / 1000;
        const secret: StoredSecret = {
          arn: `arn:aws:secretsmanager:${options.region}:${options.accountId}:secret:${name}-${randomBytes(3).toString('hex')}`,
          name,
          description: optionalString(input, 'Description'),
          versionId: randomUUID(),
          createdDate: now,
          lastChangedDate: now,
        };
        if (input['SecretString'] !== undefined || input['SecretBinary'] !== undefined)
          setValue(secret, input);
        secrets.set(name, secret);
        persist();
        return { ARN: secret.arn, Name: secret.name, VersionId: secret.versionId };
      },
      GetSecretValue: (input) => {
        const secret = find(input);
        if (secret.secretString === undefined && secret.secretBinary === undefined) {
          throw new AwsJsonError(
            'ResourceNotFoundException',
            "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
          );
        }
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: secret.versionId,
          SecretString: secret.secretString,
          SecretBinary: secret.secretBinary,
          VersionStages: ['AWSCURRENT'],
          CreatedDate: secret.lastChangedDate,
        };
      },
      PutSecretValue: (input) => {
        const secret = find(input);
        setValue(secret, input);
        persist();
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: secret.versionId,
          VersionStages: ['AWSCURRENT'],
        };
      },
      DescribeSecret: (input) => {
        const secret = find(input);
        return {
          ARN: secret.arn,
          Name: secret.name,
          Description: secret.description,
          CreatedDate: secret.createdDate,
          LastChangedDate: secret.lastChangedDate,
          VersionIdsToStages: { [secret.versionId]: ['AWSCURRENT'] },
        };
      },
      GetRandomPassword: (input) => ({ RandomPassword: randomPassword(input) }),
    },
    options.host,
  );
}

function randomPassword(input: Record<string, unknown>): string {
  const length = typeof input['PasswordLength'] === 'number' ? input['PasswordLength'] : 32;
  if (!Number.isInteger(length) || length < 1 || length > 4096) {
    throw new AwsJsonError('InvalidParameterException', 'PasswordLength must be between 1 and 4096.');
  }
  let alphabet = input['ExcludePunctuation'] === true ? ALPHANUMERIC : ALPHANUMERIC + PUNCTUATION;
  if (input['ExcludeNumbers'] === true) alphabet = alphabet.replace(/[0-9]/g, '');
  if (input['ExcludeUppercase'] === true) alphabet = alphabet.replace(/[A-Z]/g, '');
  if (input['ExcludeLowercase'] === true) alphabet = alphabet.replace(/[a-z]/g, '');
  const excluded = typeof input['ExcludeCharacters'] === 'string' ? input['ExcludeCharacters'] : '';
  alphabet = [...alphabet].filter((character) => !excluded.includes(character)).join('');
  if (input['IncludeSpace'] === true) alphabet += ' ';
  if (alphabet.length === 0)
    throw new AwsJsonError('InvalidParameterException', 'No characters left to choose from.');
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

function requireString(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string' || value.length === 0) {
    throw new AwsJsonError('InvalidParameterException', `${field} is required.`);
  }
  return value;
}

function optionalString(input: Record<string, unknown>, field: string): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new AwsJsonError('InvalidParameterException', `${field} must be a string.`);
  return value;
}

function load(file: string | undefined): StoredSecret[] {
  if (!file || !existsSync(file)) return [];
  return JSON.parse(readFileSync(file, 'utf8')) as StoredSecret[];
}
