import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from './atomic-file';
import { AwsJsonError, type AwsJsonServer, startAwsJsonServer } from './aws-json-server';

/** One version of a secret's value, with its staging labels (AWSCURRENT, AWSPREVIOUS, custom ones). */
interface StoredVersion {
  secretString?: string;
  secretBinary?: string;
  stages: string[];
  createdDate: number;
}

interface StoredSecret {
  arn: string;
  name: string;
  description?: string;
  /** By VersionId, oldest first. A version without labels is deprecated but kept (idempotency). */
  versions: Record<string, StoredVersion>;
  createdDate: number;
  lastChangedDate: number;
}

/** Versions kept per secret; Secrets Manager removes deprecated versions beyond 100. */
const MAX_VERSIONS = 100;

/** Options of the local Secrets Manager stand-in. */
export interface FakeSecretsManagerOptions {
  region: string;
  accountId: string;
  host?: string;
  /** A unix socket to listen on instead of `host` (the local run puts its front before it). */
  socketPath?: string;
  /** JSON file holding the secrets across restarts; in memory only when absent. */
  file?: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/**
 * Starts a local stand-in for the few Secrets Manager operations the pipeline uses (`CreateSecret`,
 * `GetSecretValue`, `PutSecretValue`, `DescribeSecret`, `GetRandomPassword`), speaking AWS JSON 1.1.
 * Secret values never appear in its errors. Versions behave as Secrets Manager documents them, because
 * the token cache's refresh lease relies on it: a `ClientRequestToken` names the new version (the same
 * value again is ignored, a different value fails with `ResourceExistsException`), `VersionStages`
 * labels it (default AWSCURRENT, whose previous holder becomes AWSPREVIOUS) and `GetSecretValue` reads
 * by `VersionId` or `VersionStage`.
 */
export async function startFakeSecretsManager(options: FakeSecretsManagerOptions): Promise<AwsJsonServer> {
  const secrets = new Map<string, StoredSecret>(load(options.file).map((secret) => [secret.name, secret]));
  const persist = (): void => {
    // Atomic (local/atomic-file.ts): a kill mid-write leaves the old secrets or the new ones, never a torn file.
    if (options.file) writeFileAtomic(options.file, JSON.stringify([...secrets.values()], null, 2));
  };

  const find = (input: Record<string, unknown>): StoredSecret => {
    const id = requireString(input, 'SecretId');
    const secret = secrets.get(id) ?? [...secrets.values()].find((candidate) => candidate.arn === id);
    if (!secret)
      throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };

  /** Adds a version (or accepts an identical retry); returns its id. */
  const putVersion = (secret: StoredSecret, input: Record<string, unknown>): string => {
    const secretString = optionalString(input, 'SecretString');
    const secretBinary = optionalString(input, 'SecretBinary');
    if (secretString === undefined && secretBinary === undefined) {
      throw new AwsJsonError(
        'InvalidRequestException',
        'You must provide either SecretString or SecretBinary.',
      );
    }
    const versionId = optionalString(input, 'ClientRequestToken') ?? randomUUID();
    if (versionId.length < 32 || versionId.length > 64) {
      throw new AwsJsonError('InvalidParameterException', 'ClientRequestToken must be 32-64 characters.');
    }
    const existing = secret.versions[versionId];
    if (existing) {
      if (existing.secretString === secretString && existing.secretBinary === secretBinary) return versionId;
      throw new AwsJsonError(
        'ResourceExistsException',
        "You can't modify an existing version, you can only create new versions.",
      );
    }
    const stages = stagesOf(input) ?? ['AWSCURRENT'];
    const previousCurrent = currentVersionId(secret);
    for (const version of Object.values(secret.versions)) {
      version.stages = version.stages.filter((stage) => !stages.includes(stage));
    }
    if (stages.includes('AWSCURRENT') && previousCurrent !== undefined) {
      for (const version of Object.values(secret.versions)) {
        version.stages = version.stages.filter((stage) => stage !== 'AWSPREVIOUS');
      }
      secret.versions[previousCurrent]!.stages.push('AWSPREVIOUS');
    }
    const now = Date.now() / 1000;
    // The first version of a secret is AWSCURRENT whatever labels were asked for.
    const first = previousCurrent === undefined && !stages.includes('AWSCURRENT');
    secret.versions[versionId] = {
      secretString,
      secretBinary,
      stages: first ? [...stages, 'AWSCURRENT'] : stages,
      createdDate: now,
    };
    secret.lastChangedDate = now;
    prune(secret);
    return versionId;
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
          versions: {},
          createdDate: now,
          lastChangedDate: now,
        };
        let versionId: string | undefined;
        if (input['SecretString'] !== undefined || input['SecretBinary'] !== undefined)
          versionId = putVersion(secret, { ...input, VersionStages: undefined });
        secrets.set(name, secret);
        persist();
        return { ARN: secret.arn, Name: secret.name, ...(versionId && { VersionId: versionId }) };
      },
      GetSecretValue: (input) => {
        const secret = find(input);
        const wantedId = optionalString(input, 'VersionId');
        const wantedStage = optionalString(input, 'VersionStage') ?? (wantedId ? undefined : 'AWSCURRENT');
        const entry = Object.entries(secret.versions).find(
          ([id, version]) =>
            (wantedId === undefined || id === wantedId) &&
            (wantedStage === undefined || version.stages.includes(wantedStage)),
        );
        if (!entry) {
          throw new AwsJsonError(
            'ResourceNotFoundException',
            `Secrets Manager can't find the specified secret value for ${wantedId ? `VersionId: ${wantedId}` : `staging label: ${wantedStage}`}`,
          );
        }
        const [versionId, version] = entry;
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: versionId,
          SecretString: version.secretString,
          SecretBinary: version.secretBinary,
          VersionStages: version.stages,
          CreatedDate: version.createdDate,
        };
      },
      PutSecretValue: (input) => {
        const secret = find(input);
        const versionId = putVersion(secret, input);
        persist();
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: versionId,
          VersionStages: secret.versions[versionId]!.stages,
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
          VersionIdsToStages: Object.fromEntries(
            Object.entries(secret.versions)
              .filter(([, version]) => version.stages.length > 0)
              .map(([id, version]) => [id, version.stages]),
          ),
        };
      },
      GetRandomPassword: (input) => ({ RandomPassword: randomPassword(input) }),
    },
    options.socketPath !== undefined
      ? { socketPath: options.socketPath }
      : { host: options.host ?? '127.0.0.1' },
  );
}

function currentVersionId(secret: StoredSecret): string | undefined {
  return Object.entries(secret.versions).find(([, version]) => version.stages.includes('AWSCURRENT'))?.[0];
}

function stagesOf(input: Record<string, unknown>): string[] | undefined {
  const value = input['VersionStages'];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v)) {
    throw new AwsJsonError('InvalidParameterException', 'VersionStages must be a list of staging labels.');
  }
  return [...new Set(value as string[])];
}

/** Removes the oldest deprecated (unlabelled) versions beyond the limit. */
function prune(secret: StoredSecret): void {
  const ids = Object.keys(secret.versions);
  for (const id of ids) {
    if (Object.keys(secret.versions).length <= MAX_VERSIONS) return;
    if (secret.versions[id]!.stages.length === 0) delete secret.versions[id];
  }
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

/** Secrets as an earlier version of this fake stored them: one value each. */
interface SingleValueSecret extends Omit<StoredSecret, 'versions'> {
  versionId: string;
  secretString?: string;
  secretBinary?: string;
}

function load(file: string | undefined): StoredSecret[] {
  if (!file || !existsSync(file)) return [];
  const stored = JSON.parse(readFileSync(file, 'utf8')) as (StoredSecret | SingleValueSecret)[];
  // A data directory of an earlier version keeps its secrets: its single value becomes AWSCURRENT.
  return stored.map((secret) => {
    if ('versions' in secret) return secret;
    const { versionId, secretString, secretBinary, ...rest } = secret;
    const hasValue = secretString !== undefined || secretBinary !== undefined;
    return {
      ...rest,
      versions: hasValue
        ? {
            [versionId]: {
              secretString,
              secretBinary,
              stages: ['AWSCURRENT'],
              createdDate: rest.lastChangedDate,
            },
          }
        : {},
    };
  });
}
