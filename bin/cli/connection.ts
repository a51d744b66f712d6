/**
 * Connection flags and environment variables shared by every command that talks to the service.
 */
import type { ParseArgsConfig } from 'node:util';
import { ENVIRONMENTS, KNOWN_SCOPES, type ServiceEnvironment } from '../../shared/api/enums';
import { IdvClient } from '../../shared/client/client';
import { serviceErrorText } from '../../shared/client/error-text';
import { RequestValidationError } from '../../shared/client/errors';
import { ENV, parseScopeList } from '../../shared/config';
import { UsageError } from './errors';
import type { FlagValues } from './flag-values';
import { checkedValue } from './flags';
import type { CliIo } from './types';

/** Flags every connected command accepts. */
export const CONNECTION_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  environment: { type: 'string' },
  scopes: { type: 'string' },
};

/** Help lines of the connection flags. */
export const CONNECTION_HELP = `Connection (flag or environment variable):
  --base-url URL         IDV_BASE_URL       base address of the service
  --client-id ID         IDV_CLIENT_ID      OAuth client id
  --client-secret S      IDV_CLIENT_SECRET  OAuth client secret (prefer the variable: flags show in ps)
  --environment ENV      IDV_ENVIRONMENT    staging (default) or production
  --scopes S1,S2         ${ENV.scopes.padEnd(18)} OAuth scopes to request, comma-separated (default: the
                                            six known productapi.* scopes; the pipeline reads it too)`;

/** Builds the client from flags first, then environment variables. Missing values are usage errors. */
export function clientFromFlags(values: FlagValues, io: CliIo, command: string): IdvClient {
  const pick = (flagName: string, envName: string) => {
    const value = values[flagName];
    return typeof value === 'string' && value !== '' ? value : io.env[envName] || undefined;
  };
  const baseUrl = pick('base-url', 'IDV_BASE_URL');
  const clientId = pick('client-id', 'IDV_CLIENT_ID');
  const clientSecret = pick('client-secret', 'IDV_CLIENT_SECRET');
  const environment = pick('environment', 'IDV_ENVIRONMENT') ?? 'staging';
  if (!baseUrl) throw new UsageError('missing --base-url (or IDV_BASE_URL)', command);
  if (!clientId) throw new UsageError('missing --client-id (or IDV_CLIENT_ID)', command);
  if (!clientSecret) throw new UsageError('missing --client-secret (or IDV_CLIENT_SECRET)', command);
  checkedValue(environment, '--environment (or IDV_ENVIRONMENT)', ENVIRONMENTS, command);
  const scopesText = pick('scopes', ENV.scopes);
  const scopes = scopesText === undefined ? KNOWN_SCOPES : parseScopeList(scopesText);
  if (scopes.length === 0) {
    throw new UsageError(`--scopes (or ${ENV.scopes}) must name at least one scope`, command);
  }
  try {
    return new IdvClient({
      baseUrl,
      environment: environment as ServiceEnvironment,
      credentials: { clientId, clientSecret },
      scopes,
      // The person who typed the command reads the service's words of a refusal (bin/cli/main.ts).
      keepErrorText: serviceErrorText,
      userAgent: 'idv-cli',
      ...(io.fetch && { fetch: io.fetch }),
    });
  } catch (error) {
    // The client checks the base URL; say it in terms of the flag the user typed.
    const issue = error instanceof RequestValidationError ? error.issues[0] : undefined;
    if (issue?.path === 'baseUrl')
      throw new UsageError(`--base-url (or IDV_BASE_URL) ${issue.message}`, command);
    throw error;
  }
}
