import { describe, expect, it } from 'vitest';
import { ENV, loadFetchResultConfig, loadPollConfig, loadWebhookConfig } from '../../shared/config';
import { ConfigError } from '../../shared/errors';

const FULL = {
  [ENV.environment]: 'staging',
  [ENV.serviceBaseUrl]: 'http://127.0.0.1:4010/',
  [ENV.credentialsSecretId]: 'creds',
  [ENV.tokenCacheSecretId]: 'cache',
  [ENV.webhookSecretId]: 'hook',
  [ENV.resultsQueueUrl]: 'http://q',
  [ENV.resultsTableName]: 'table',
  [ENV.dataBucketName]: 'bucket',
  [ENV.eventBusName]: 'bus',
  [ENV.retentionDays]: '30',
  [ENV.s3ForcePathStyle]: 'true',
  [ENV.pollMarkersTableName]: 'markers',
  [ENV.pollMarkerWindowSeconds]: '360',
};

describe('config loaders', () => {
  it('read every variable of each function', () => {
    // Act
    const fetch = loadFetchResultConfig(FULL);

    // Assess
    expect(fetch).toMatchObject({
      environment: 'staging',
      serviceBaseUrl: 'http://127.0.0.1:4010',
      scopes: ['productapi.poll.read', 'productapi.result.read'],
      retentionDays: 30,
      s3ForcePathStyle: true,
    });
    expect(loadPollConfig({ ...FULL, [ENV.scopes]: 'a, b' }).scopes).toEqual(['a', 'b']);
    expect(fetch.eventCustomerReference).toBe('include');
    expect(loadFetchResultConfig({ ...FULL, [ENV.environment]: 'production' }).eventCustomerReference).toBe(
      'omit',
    );
    expect(
      loadFetchResultConfig({
        ...FULL,
        [ENV.environment]: 'production',
        [ENV.eventCustomerReference]: 'include',
      }).eventCustomerReference,
    ).toBe('include');
    expect(loadWebhookConfig(FULL)).toMatchObject({ webhookSecretId: 'hook', resultsQueueUrl: 'http://q' });
  });

  it.each([
    [{ [ENV.retentionDays]: '1.5' }, 'IDV_RETENTION_DAYS must be a positive whole number'],
    [{ [ENV.retentionDays]: '0' }, 'IDV_RETENTION_DAYS must be a positive whole number'],
    [{ [ENV.eventBusName]: '' }, 'IDV_EVENT_BUS is not set'],
    [{ [ENV.environment]: 'dev' }, 'IDV_ENVIRONMENT must be one of staging, production'],
    [{ [ENV.serviceBaseUrl]: 'not a url' }, 'IDV_BASE_URL must be an absolute http(s) URL'],
    [{ [ENV.serviceBaseUrl]: 'https://user:pw@service.example' }, 'IDV_BASE_URL must not contain user info'],
    [{ [ENV.serviceBaseUrl]: 'https://service.example/?stage=1' }, 'IDV_BASE_URL must not have a query'],
    [{ [ENV.s3ForcePathStyle]: 'yes' }, 'IDV_S3_FORCE_PATH_STYLE must be true or false'],
    [{ [ENV.eventCustomerReference]: 'hash' }, 'IDV_EVENT_CUSTOMER_REFERENCE must be one of include, omit'],
  ])('throws a ConfigError naming the variable for %j', (override, message) => {
    // Act
    const load = () => loadFetchResultConfig({ ...FULL, ...override });

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
  });
});
