import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli/main';
import { splitResult } from '../../bin/cli/result';
import type { CliCommand, CliIo } from '../../bin/cli/types';

/** An in-memory io; `fetch` records requests and answers the token endpoint and `answer` otherwise. */
function fakeIo(env: Record<string, string> = {}, answer: unknown = { results: [] }) {
  const out: string[] = [];
  const err: string[] = [];
  const requests: { method: string; url: string; headers: Headers; body: unknown }[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: {
      IDV_BASE_URL: 'http://127.0.0.1:9',
      IDV_CLIENT_ID: 'demo',
      IDV_CLIENT_SECRET: 'demo-secret',
      ...env,
    },
    cwd: '/nonexistent',
    fetch: (async (input: string | URL, init?: RequestInit) => {
      const url = String(input);
      requests.push({
        method: init?.method ?? 'GET',
        url,
        headers: new Headers(init?.headers),
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      });
      if (url.endsWith('/oauth/token'))
        return Response.json({ accessToken: 'a', expiresIn: '3600', tokenType: 'Bearer' });
      return Response.json(answer);
    }) as typeof fetch,
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join(''), requests };
}

describe('runCli dispatch', () => {
  it('prints the command list on --help (exit 0) and on no arguments (stderr, exit 2)', async () => {
    // Prepare
    const help = fakeIo();
    const none = fakeIo();

    // Act
    const helpCode = await runCli(['--help'], help.io);
    const noneCode = await runCli([], none.io);

    // Assess
    expect(helpCode).toBe(0);
    expect(help.stdout()).toContain('service result get');
    expect(noneCode).toBe(2);
    expect(none.stderr()).toContain('Usage: idv <command>');
  });

  it('runs a command and prints its value as JSON', async () => {
    // Prepare
    const fake = fakeIo({}, { results: [{ resultId: 'r-1' }] });

    // Act
    const code = await runCli(['poll'], fake.io);

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(fake.stdout())).toEqual({ results: [{ resultId: 'r-1' }] });
    expect(fake.requests.map((r) => r.url)).toEqual([
      'http://127.0.0.1:9/api/v2/oauth/token',
      'http://127.0.0.1:9/api/v2/poll',
    ]);
  });

  it('prefers flags over environment variables for the connection', async () => {
    // Prepare
    const fake = fakeIo();

    // Act
    await runCli(['poll', '--base-url', 'http://127.0.0.1:8/x', '--client-id', 'other'], fake.io);

    // Assess
    expect(fake.requests[0]?.url).toBe('http://127.0.0.1:8/x/api/v2/oauth/token');
    expect(fake.requests[0]?.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('other:demo-secret').toString('base64')}`,
    );
  });

  it.each([
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['resutls', 'list'], 'unknown command "resutls" (did you mean "idv results"?)'],
    [['result', 'get', 'r-1'], '"idv result get" is now "idv service result get"'],
    [['secure-link'], '"idv secure-link" is not a command; try: secure-link create, secure-link bulk'],
    [['poll', 'extra'], 'unexpected argument "extra"'],
    [['sdk-token', '--service', 'NFC', '--challenges', 'two'], '--challenges must be a whole number'],
    [
      ['face-verify', '--transaction-id', 't-1', '--image', 'live.jpg'],
      '--image live.jpg: face-verify needs the image type, TYPE=PATH (e.g. LIVE=live.jpg)',
    ],
    [
      ['id-verify', '--product', 'IDV_LITE', '--image', 'PASPORT=a.jpg'],
      'the TYPE of --image PASPORT=a.jpg must be one of ADDITIONAL, BSN_STATEMENT, COMPARE, DRIVING_LICENSE, IDENTITY_CARD, LIVE, PAPER, PASSPORT, PAYROLL_TAX_STATEMENT, PORTRAIT, RESIDENCE_PERMIT, RTW_DOCUMENT, SIGNATURE, WORK_PERMIT (did you mean PASSPORT?)',
    ],
    [['quality', '--image', 'a.jpg,ref=x'], '--image a.jpg,ref=x: quality has no per-image reference'],
    [
      ['poll', '--environment', 'prod'],
      '--environment (or IDV_ENVIRONMENT) must be one of staging, production',
    ],
    [['service', 'result', 'get'], 'missing RESULT_ID'],
    [
      ['poll', '--base-url', 'localhost:4010'],
      '--base-url (or IDV_BASE_URL) must start with http:// or https://',
    ],
    [['poll', '--base-url', 'ftp://127.0.0.1:4010'], '--base-url (or IDV_BASE_URL) must start with http://'],
    [
      ['poll', '--base-url', 'http://demo:pw@127.0.0.1:4010'],
      '--base-url (or IDV_BASE_URL) must not contain user info',
    ],
    [['poll', '--base-url', '127.0.0.1:4010'], '--base-url (or IDV_BASE_URL) is not a URL'],
    [
      ['quality', '--image', 'missing.png'],
      'cannot read the file of --image missing.png: no such file (ENOENT)',
    ],
  ])('usage error for %j: exit 2, %s', async (argv, message) => {
    // Prepare
    const fake = fakeIo();

    // Act
    const code = await runCli(argv, fake.io);

    // Assess
    expect(code).toBe(2);
    expect(fake.stderr()).toContain(`idv: ${message}`);
    expect(fake.requests).toHaveLength(0);
  });

  it('points a file error at the help of the command that read the file', async () => {
    // Prepare
    const fake = fakeIo();

    // Act
    await runCli(['quality', '--image', 'missing.png'], fake.io);

    // Assess
    expect(fake.stderr()).toContain('Run "idv quality --help" for usage.');
  });

  it('names the field of a request the spec forbids (exit 2: a wrong command line, nothing sent)', async () => {
    // Prepare
    const fake = fakeIo();

    // Act
    const code = await runCli(
      ['secure-link', 'create', '--product', 'IDV_GOLD', '--language', 'NL'],
      fake.io,
    );

    // Assess
    expect(code).toBe(2);
    expect(fake.stderr()).toMatch(
      /^idv: invalid secure link request: product \(--product\): must be one of FACE_LINK, .*; languagePrefix \(--language\): /,
    );
    expect(fake.stderr()).toContain('Run "idv secure-link create --help" for usage.');
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    [
      ['secure-link', 'create', '--product', 'IDV_LITE', '--mock-test', 'approved'],
      'mockTest (--mock-test): must be one of APPROVED, APPROVED_EU, APPROVED_NON_EU, APPROVED_RP, DISAPPROVED, TECHNICAL_REJECT (did you mean APPROVED?)',
    ],
    [
      ['secure-link', 'create', '--product', 'IDV_STANDRD'],
      'product (--product): must be one of FACE_LINK, IDV_LITE, IDV_STANDARD, IDV_PREMIUM, RTW_STANDARD, RTW_PREMIUM (did you mean IDV_STANDARD?)',
    ],
    [
      ['secure-link', 'create', '--product', 'IDV_LITE', '--mode', 'MODE_EMAIL', '--mode', 'MODE_SMSS'],
      'communicationModes[1] (--mode MODE_SMSS): must be one of MODE_EMAIL, MODE_SMS, MODE_WHATSAPP (did you mean MODE_SMS?)',
    ],
    [
      ['secure-link', 'create', '--product', 'IDV_LITE', '--mode', 'MODE_SMS'],
      'phoneNumber (--phone): is required with MODE_SMS',
    ],
    [
      ['sdk-token', '--service', 'FACE'],
      'services[0] (--service FACE): must be one of FACE_VERIFY, AUTO_CAPTURE, NFC',
    ],
    [['sdk-token', '--service', 'NFC', '--challenges', 'two'], '--challenges must be a whole number'],
    [['facelink-package', '--token', ''], 'missing --token'],
  ])('names the flag behind the field for %j', async (argv, message) => {
    // Prepare
    const fake = fakeIo();

    // Act
    await runCli(argv, fake.io);

    // Assess
    expect(fake.stderr()).toContain(message);
    expect(fake.requests).toHaveLength(0);
  });

  it('shows a stack trace only with IDV_DEBUG=1', async () => {
    // Prepare
    const quiet = fakeIo();
    const debug = fakeIo({ IDV_DEBUG: '1' });

    // Act
    await runCli(['service', 'result', 'get', '../x'], quiet.io);
    await runCli(['service', 'result', 'get', '../x'], debug.io);

    // Assess
    expect(quiet.stderr()).not.toMatch(/\n\s+at /);
    expect(debug.stderr()).toMatch(/\n\s+at /);
  });

  it('dispatches a registered command with a one-line addition to the list', async () => {
    // Prepare
    const fake = fakeIo();
    const redrive: CliCommand = {
      path: ['dlq', 'redrive'],
      summary: 'test command',
      usage: 'dlq redrive [--max N]',
      help: '  --max N',
      options: { max: { type: 'string' } },
      connection: false,
      run: async (ctx) => ({ max: ctx.values['max'] }),
    };

    // Act
    const code = await runCli(['dlq', 'redrive', '--max', '5'], fake.io, [redrive]);

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(fake.stdout())).toEqual({ max: '5' });
  });
});

describe('the CLI asks what the spec asks, no more', () => {
  it('secure-link create sends no product when --product is not given (§4.1: optional)', async () => {
    // Prepare
    const fake = fakeIo({}, { secureId: 's', transactionId: 't', communicationsResponse: [] });

    // Act
    const code = await runCli(['secure-link', 'create', '--disable-communication'], fake.io);

    // Assess
    expect(code).toBe(0);
    const sent = fake.requests.find((r) => r.url.endsWith('/secureidlink'));
    expect(sent?.body).toEqual({ disableCommunication: true });
  });

  it.each(['0', '1', '50'])('sdk-token --challenges %s is sent as given (§4.11 sets no range)', async (n) => {
    // Prepare
    const fake = fakeIo({}, { token: 'k', transactionId: 't' });

    // Act
    const code = await runCli(['sdk-token', '--service', 'FACE_VERIFY', '--challenges', n], fake.io);

    // Assess
    expect(code).toBe(0);
    expect(fake.requests.at(-1)?.url).toContain(`numberOfChallenges=${n}`);
  });

  it('--mock-test against production is a usage error: exit 2, nothing sent', async () => {
    // Prepare
    const fake = fakeIo({ IDV_ENVIRONMENT: 'production' });

    // Act
    const code = await runCli(
      [
        'secure-link',
        'create',
        '--product',
        'IDV_LITE',
        '--mock-test',
        'APPROVED',
        '--environment',
        'production',
      ],
      fake.io,
    );

    // Assess
    expect(code).toBe(2);
    expect(fake.stderr()).toContain('only allowed on the staging environment');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('splitResult (service result get --out)', () => {
  const jpegBytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]);
  const pdfBytes = Buffer.from('%PDF-1.4\n');

  it('numbers images then files, names them from enum values and the sniffed extension', () => {
    // Act
    const { json, attachments } = splitResult({
      result: 'APPROVED',
      images: [
        { data: jpegBytes.toString('base64'), documentType: 'PASSPORT', pageType: 'FRONT' },
        { data: 'AAAA', documentType: '../../etc', pageType: 'SIDEWAYS' },
      ],
      files: [{ data: pdfBytes.toString('base64'), documentType: 'TRANSACTION_REPORT' }],
    });

    // Assess
    expect(attachments.map((a) => a.fileName)).toEqual([
      '01-PASSPORT-FRONT.jpg',
      '02-UNKNOWN-UNKNOWN.bin',
      '03-TRANSACTION_REPORT.pdf',
    ]);
    expect(attachments[0]?.bytes.equals(jpegBytes)).toBe(true);
    expect(json.images?.map((i) => i.data)).toEqual(['01-PASSPORT-FRONT.jpg', '02-UNKNOWN-UNKNOWN.bin']);
    expect(json.images?.[1]?.documentType).toBe('../../etc');
    expect(json.files?.[0]?.data).toBe('03-TRANSACTION_REPORT.pdf');
    expect(json.result).toBe('APPROVED');
  });

  it('leaves a result without images or files as it is', () => {
    // Act
    const { json, attachments } = splitResult({ result: 'DISAPPROVED', messages: ['X'] });

    // Assess
    expect(attachments).toEqual([]);
    expect(json).toEqual({ result: 'DISAPPROVED', messages: ['X'] });
  });
});
