import { describe, expect, it } from 'vitest';
import { openAwsTarget } from '../../local/aws-target';
import { ConfigError } from '../../shared/errors';

describe('openAwsTarget (AWS)', () => {
  it('reads IDV_S3_FORCE_PATH_STYLE as the functions do ("1" counts as true)', async () => {
    // Prepare
    const env = { AWS_REGION: 'eu-west-1', IDV_S3_FORCE_PATH_STYLE: '1', IDV_RESULTS_TABLE: 'results' };

    // Act
    const target = await openAwsTarget({ local: false, env });

    // Assess
    try {
      expect(target.s3.config.forcePathStyle).toBe(true);
      expect(target.tableName).toBe('results');
    } finally {
      await target.close();
    }
  });

  it('refuses an IDV_S3_FORCE_PATH_STYLE that is neither true nor false, naming the variable', async () => {
    // Act
    const open = openAwsTarget({ local: false, env: { IDV_S3_FORCE_PATH_STYLE: 'yes' } });

    // Assess
    await expect(open).rejects.toBeInstanceOf(ConfigError);
    await expect(open).rejects.toThrow('IDV_S3_FORCE_PATH_STYLE must be true or false');
  });
});
