/**
 * Bad input at the front door: more than 1,000 malformed webhook requests (bad JSON, huge bodies, wrong
 * content types, wrong or missing secrets, odd ids, unicode, arrays, nulls) through the local API Gateway
 * adapter and the real webhook handler module against fauxqs. Figures printed; published in
 * docs/reliability.md. Forged but well-formed requests carry planted personal data that must not reach
 * the queue or a log line.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookEndpoint, type WebhookEndpoint } from '../../local/api-gateway';
import { lambdaContext } from '../../local/lambda-context';
import { RESULT_ID_PATTERN } from '../../shared/api/result-id';
import { captureOutput, setHandlerEnv, webhookSecretOf } from '../support/handler-env';
import { clientConfig, type PipelineResources } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { drainQueue } from '../support/queue-drain';

const PLANTED = ['Jan Planted-Jansen', '1985-03-12', 'NL-PASS-X99', '999999990'];

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  readonly kind: string;
  readonly path: 'result' | 'upload';
  /** undefined: the right secret; otherwise the raw path segment used instead. */
  readonly secret?: string;
  readonly contentType?: string;
  readonly body: Buffer;
}

const ODD_IDS: unknown[] = [
  '../../etc/passwd',
  'a/b',
  ' leading-space',
  'trailing ',
  '.hidden',
  '-dash-first',
  'x'.repeat(257),
  '',
  'ünïcödé',
  '😀',
  'a\u0000b',
  'a\nb',
  'a%2Fb',
  '<script>',
  'id;drop',
  1.5,
  -4,
  2 ** 60,
  true,
  false,
  null,
  {},
  { id: 'x' },
  ['abc'],
  [],
];

/** The malformed cases: each must be refused (4xx) and enqueue nothing. */
function malformedCases(secret: string): Case[] {
  const random = prng(14);
  const cases: Case[] = [];
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const route = (): 'result' | 'upload' => (random() < 0.7 ? 'result' : 'upload');
  const idField = (r: 'result' | 'upload') => (r === 'result' ? 'resultId' : 'transactionId');

  for (let i = 0; i < 200; i++) {
    // Bad JSON: truncated objects, random bytes, trailing garbage, JSON5-isms.
    const valid = JSON.stringify({ resultId: `r-${i}`, customerReference: PLANTED[0] });
    const variants = [
      valid.slice(0, Math.max(1, Math.floor(random() * (valid.length - 1)))),
      Buffer.from(Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256)))
        .toString('latin1')
        .replace(/^[[{"0-9tfn-]/, '#'),
      `${valid}}`,
      `{resultId: 'r-${i}'}`,
      `{"resultId":"r-${i}",}`,
    ];
    cases.push({ kind: 'bad JSON', path: route(), body: Buffer.from(pick(variants), 'latin1') });
  }
  for (let i = 0; i < 200; i++) {
    // Odd ids under the right field, and well-formed ids under the wrong one.
    const r = route();
    const id = i % 8 === 7 ? undefined : pick(ODD_IDS);
    const body =
      id === undefined ? { id: `r-${i}`, ref: PLANTED[1] } : { [idField(r)]: id, userId: PLANTED[2] };
    cases.push({ kind: 'odd id', path: r, body: json(random() < 0.3 ? { data: body } : body) });
  }
  for (let i = 0; i < 150; i++) {
    // Arrays, nulls, scalars and empty bodies instead of an object.
    const shapes = ['null', '[]', `[{"resultId":"r-${i}"}]`, '"r-1"', '42', 'true', '', '   ', '\n'];
    cases.push({ kind: 'not an object', path: route(), body: Buffer.from(pick(shapes)) });
  }
  for (let i = 0; i < 150; i++) {
    // Unicode everywhere: keys, values, lone surrogates, BOM, right-to-left marks.
    const weird = pick(['\uFEFF', '\u202E', '\uD800', 'ı', 'ß', 'Ｒ', '\u00A0', '\u2028']);
    const r = route();
    const body =
      random() < 0.5
        ? `{"${idField(r)}":"r-${i}${weird}","customerReference":"${PLANTED[0]}"}`
        : `{"${idField(r).replace('I', weird)}":"r-${i}"}`;
    cases.push({ kind: 'unicode', path: r, body: Buffer.from(body) });
  }
  for (let i = 0; i < 150; i++) {
    // Wrong content types with bodies that are not a usable request once decoded.
    const contentType = pick([
      'application/octet-stream',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'text/xml',
      'image/png',
      'application/json; charset=utf-16',
    ]);
    const body = pick([
      `resultId=r-${i}&customerReference=${encodeURIComponent(PLANTED[0]!)}`,
      `<result><resultId>r-${i}</resultId></result>`,
      '--x\r\nContent-Disposition: form-data; name="resultId"\r\n\r\nr-1\r\n--x--',
      '\x89PNG\r\n\x1a\n',
    ]);
    cases.push({ kind: 'wrong content type', path: route(), contentType, body: Buffer.from(body, 'latin1') });
  }
  for (let i = 0; i < 150; i++) {
    // Well-formed bodies with a wrong or missing secret: 404 (or the gateway's 403), nothing enqueued.
    const wrong = pick([
      secret.slice(0, -1),
      `${secret}x`,
      secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase(),
      '%E0%A4%A',
      '%00',
      encodeURIComponent('ünïcödé-secret'),
      'x'.repeat(2000),
      '',
      ' ',
    ]);
    cases.push({
      kind: 'wrong or missing secret',
      path: route(),
      secret: wrong,
      body: json({ resultId: `r-${i}`, transactionId: `tx-${i}` }),
    });
  }
  for (let i = 0; i < 20; i++) {
    // Huge bodies: over the handler's 256 KB (413), a few over API Gateway's 10 MB (the adapter's 413).
    const size = i < 3 ? 10 * 1024 * 1024 + 1 : 256 * 1024 + 1 + Math.floor(random() * 512 * 1024);
    const filler = 'x'.repeat(size);
    cases.push({
      kind: 'huge body',
      path: route(),
      body: Buffer.from(`{"resultId":"r-huge-${i}","pad":"${filler}"}`),
    });
  }
  return cases;
}

let local: LocalStore;
let resources: PipelineResources;
let endpoint: WebhookEndpoint;
let secret: string;
let sqs: SQSClient;
const captured: string[] = [];
/** The real stderr, kept before the handler's log lines are captured: the figures go there. */
const print = process.stderr.write.bind(process.stderr);

async function send(c: Case): Promise<number> {
  const segment = c.secret ?? secret;
  const response = await fetch(`${endpoint.url}/webhooks/${segment}/${c.path}`, {
    method: 'POST',
    headers: { 'content-type': c.contentType ?? 'application/json' },
    body: c.body,
  });
  await response.arrayBuffer();
  return response.status;
}

function receiveAll(): Promise<Record<string, unknown>[]> {
  return drainQueue(sqs, resources.queueUrl);
}

describe('webhook under malformed requests (local API Gateway + real handler + fauxqs)', () => {
  beforeAll(async () => {
    captureOutput(captured);
    local = await startLocalStore('idv-fuzz', { resources: { visibilityTimeoutSeconds: 30 } });
    resources = local.resources;
    secret = await webhookSecretOf(local);
    setHandlerEnv(local, {
      serviceBaseUrl: 'https://service.invalid',
      environment: 'staging',
      retentionDays: 30,
      scopes: ['productapi.result.read'],
    });
    const { handler } = (await import('../../functions/webhook/handler')) as {
      handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
    };
    endpoint = await startWebhookEndpoint({
      handler,
      context: () => lambdaContext('webhook', local.aws.region),
    });
    sqs = new SQSClient(clientConfig(local.aws, 'sqs'));
  }, 60_000);

  afterAll(async () => {
    vi.restoreAllMocks();
    await endpoint?.close();
    sqs?.destroy();
    await local?.close();
  });

  it('refuses every malformed request without a crash and enqueues nothing', async () => {
    // Prepare
    const cases = malformedCases(secret);
    const byKind = new Map<string, number>();
    const statuses = new Map<number, number>();

    // Act: a few at a time, as a sender retrying would.
    for (let start = 0; start < cases.length; start += 8) {
      const batch = cases.slice(start, start + 8);
      const answers = await Promise.all(batch.map(send));
      answers.forEach((status, i) => {
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const kind = batch[i]!.kind;
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      });
    }
    const enqueued = await receiveAll();

    // Assess
    const crashes = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
    const accepted = [...statuses].filter(([s]) => s < 400).reduce((n, [, c]) => n + c, 0);
    print(
      `webhook fuzz: ${cases.length} malformed requests; by kind ${JSON.stringify(Object.fromEntries(byKind))}; ` +
        `answers ${JSON.stringify(Object.fromEntries(statuses))}; crashes (5xx) ${crashes}; ` +
        `accepted ${accepted}; messages enqueued ${enqueued.length}\n`,
    );
    expect(cases.length).toBeGreaterThanOrEqual(1000);
    expect(crashes).toBe(0);
    expect(accepted).toBe(0);
    expect(enqueued).toEqual([]);
  }, 180_000);

  it('forged but well-formed requests enqueue the identifier alone; no planted text in the queue or the logs', async () => {
    // Prepare
    const forged = Array.from({ length: 20 }, (_, i) => ({
      kind: 'forged',
      path: i % 2 === 0 ? ('result' as const) : ('upload' as const),
      body: Buffer.from(
        JSON.stringify({
          [i % 2 === 0 ? 'resultId' : 'transactionId']: `forged-${i}`,
          customerReference: PLANTED[0],
          userId: PLANTED[1],
          product: PLANTED[2],
          completed: PLANTED[1],
          secureId: `${PLANTED[3]} ${PLANTED[0]}`,
          uploadedAt: PLANTED[1],
          data: { name: PLANTED[0] },
        }),
      ),
    }));

    // Act
    const statuses = await Promise.all(forged.map(send));
    const enqueued = await receiveAll();

    // Assess
    expect(statuses.every((s) => s === 202)).toBe(true);
    expect(enqueued).toHaveLength(20);
    for (const message of enqueued) {
      if (message.kind === 'upload') {
        expect(Object.keys(message).sort()).toEqual(['kind', 'transactionId', 'uploadedAt']);
      } else {
        expect(Object.keys(message).sort()).toEqual(['resultId', 'source']);
      }
      expect(RESULT_ID_PATTERN.test(String(message.resultId ?? message.transactionId))).toBe(true);
    }
    const logs = captured.join('\n');
    expect(logs).toContain('webhook accepted');
    for (const value of [...PLANTED, secret]) {
      expect(logs.includes(value), 'planted text or the secret in a log line').toBe(false);
      expect(JSON.stringify(enqueued).includes(value)).toBe(false);
    }
  }, 60_000);
});
