/**
 * `npm start` usage errors as the real process shows them: message on stderr, exit 2, and the summary
 * line with `exit: "usage"` (scripts read the last stdout line), before anything is started.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { run } from '../support/run-process';

const npmStart = (...args: string[]) => run('npm', ['start', '--silent', '--', ...args]);

describe('npm start usage errors', () => {
  beforeAll(() => {
    // The child inherits this environment: credentials exported in the developer's shell would count.
    delete process.env['IDV_CLIENT_ID'];
    delete process.env['IDV_CLIENT_SECRET'];
  });

  it('refuses --port 99999 with a usage message instead of a RangeError', async () => {
    // Act
    const result = await npmStart('--port', '99999', '--once');

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('npm start: --port must be a whole number from 0 to 65535 (see --help)');
    expect(result.stderr).not.toContain('RangeError');
    expect(result.summary).toMatchObject({ exit: 'usage' });
  });

  it('refuses --service-url without credentials, naming the missing flags and variables', async () => {
    // Act
    const result = await npmStart('--service-url', 'http://127.0.0.1:9', '--once');

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'missing --client-id (or IDV_CLIENT_ID) and --client-secret (or IDV_CLIENT_SECRET)',
    );
    expect(result.summary).toMatchObject({ exit: 'usage' });
  });

  it('refuses the demo on production before anything starts, saying what to do', async () => {
    // Act
    const result = await npmStart('--environment', 'production', '--data-dir', '/nonexistent/idv-never');

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--environment production cannot run the demo');
    expect(result.stderr).toContain('--demo 0');
    expect(result.stderr).not.toContain('MockTestNotAllowedError');
    expect(result.summary).toMatchObject({ exit: 'usage' });
  });
});
