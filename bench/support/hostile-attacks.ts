/**
 * The attacks of the hostile-service suite (docs/reliability.md "Hostile service"), one per broken or
 * held promise of issue 20, each at two scales: `full` (the sizes the issue measured) and `quick` (small
 * bodies for `npm test` and `--quick`). An attack says how the service misbehaves, which pipeline path it
 * hits and what the pipeline promises in return; `hostile-runner.ts` runs it and checks the promises.
 */
import type { BodyPart } from './hostile-bodies';
import {
  type Behaviour,
  type HostileAnswer,
  type HostileService,
  jsonAnswer,
  normalResult,
} from './hostile-service';

/** Size of a run. */
export type Scale = 'full' | 'quick';

/** Personal data the service plants in answers: none of it may reach a log line, an error or an event. */
export const PLANTED_PERSONAL = {
  name: 'Jane Plantedottir',
  birthDate: '1983-04-05',
  documentNumber: 'X99887766P',
} as const;

/** What the pipeline must end with. */
export type ExpectedOutcome =
  /** Stored, and every object reads back with its checksum (`idv results get --out`). */
  | 'stored'
  /** An UNAVAILABLE item and its event. */
  | 'unavailable'
  /** Not stored, not announced, no crash: a refusal or an error of a named class. */
  | 'not-stored'
  /** Refused with a named reason (logged as `reason`, DLQ + alarm, redrivable): a limit or rule says no. */
  | 'refused'
  /** Stored consistently, or refused with a name: both keep the promise (which one depends on the size). */
  | 'stored-or-refused'
  /** Stored consistently, refused, or failed with an error of a named class: anything but a crash. */
  | 'named';

/** One attack. */
export interface Attack {
  readonly name: string;
  /** What the service sends, in a few words (the table's first column). */
  readonly what: string;
  /** The pipeline path: one fetch-result message, or one scheduled poll. */
  readonly path: 'fetch-result' | 'poll';
  behaviour(scale: Scale, service: HostileService): Behaviour;
  readonly expect: ExpectedOutcome;
  /** The result GET must have been made more than once (a 5xx is retried). */
  readonly retried?: boolean;
  /** Longest wall time per container (ms). @default the run's cap */
  maxWallMs?(scale: Scale): number;
  /** Most token requests per container. */
  readonly maxTokenRequestsPerContainer?: number;
  /** Cold containers started at once (each its own process). @default 1 */
  containers?(scale: Scale): number;
  /** The invocation's time (Lambda context). @default 90 s, the function's timeout */
  invocationMs?(scale: Scale): number;
  /** Runs a full GC this often in the handler process (the deadline must hold after a GC). */
  readonly gcEveryMs?: number;
  /** Queue message fields beside `resultId` (as the poll would send them). */
  readonly hints?: Readonly<Record<string, string>>;
  /** Cheap at `quick` scale (under 2 s): part of `npm test`. */
  readonly cheap: boolean;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const by = (scale: Scale, full: number, quick: number) => (scale === 'full' ? full : quick);

/** The words an error body or a value carries: a name, a date of birth, a document number. */
const personalText = `${PLANTED_PERSONAL.name}, born ${PLANTED_PERSONAL.birthDate}, passport ${PLANTED_PERSONAL.documentNumber}`;

/** A result body with `middle` between a normal head and a normal tail. */
function resultWith(resultId: string, middle: readonly BodyPart[]): BodyPart[] {
  return [
    `{"resultId":${JSON.stringify(resultId)},"transactionId":"tx-${resultId}","product":"IDV_STANDARD",`,
    '"result":"APPROVED","identity":{"result":"APPROVED","messages":[]},',
    ...middle,
    '"images":[],"files":[]}',
  ];
}

/** A body whose one string value is `count` characters: the inflated content of every gzip bomb. */
function longValue(head: string, count: number, tail: string): BodyPart[] {
  return [head, { fill: 'A', count }, tail];
}

const bomb = (status: number, parts: BodyPart[]): HostileAnswer => ({ status, parts, gzip: true });
const bombSize = (scale: Scale) => by(scale, GiB, 16 * MiB);
const plainSize = (scale: Scale) => by(scale, 600 * MiB, 8 * MiB);
const errorBody = (count: number) => longValue('{"code":13,"message":"', count, '"}');

/**
 * An error body carrying personal data and the request's own `Authorization` header, the credential
 * first: a message cut at 200 characters still carries it.
 */
function echoing(status: number, code: number, authorization: string): HostileAnswer {
  return jsonAnswer(status, {
    code,
    message: `you sent Authorization: ${authorization}; refused for ${personalText}`,
    // The spec's shape (`details` an array), so the body is taken for an error body and read.
    details: [`holder ${PLANTED_PERSONAL.name}`, `dateOfBirth ${PLANTED_PERSONAL.birthDate}`],
  });
}

const TOKEN_WALL_MS = 10_000;

/** Every attack, in the order. */
export const ATTACKS: readonly Attack[] = [
  {
    name: 'gzip-bomb-result-200',
    what: 'result 200, gzip inflating to 1 GiB',
    path: 'fetch-result',
    behaviour: (scale) => ({
      result: ({ resultId }) =>
        bomb(200, longValue(`{"resultId":${JSON.stringify(resultId)},"result":"`, bombSize(scale), '"}')),
    }),
    // A small bomb inflates to a result that may be stored; a large one is refused or fails, within budget.
    expect: 'named',
    cheap: true,
  },
  {
    name: 'gzip-bomb-result-500',
    what: 'result 500, gzip inflating to 1 GiB',
    path: 'fetch-result',
    behaviour: (scale) => ({ result: () => bomb(500, errorBody(bombSize(scale))) }),
    expect: 'not-stored',
    retried: true,
    cheap: true,
  },
  {
    name: 'gzip-bomb-result-404',
    what: 'result 404, gzip inflating to 1 GiB',
    path: 'fetch-result',
    behaviour: (scale) => ({ result: () => bomb(404, errorBody(bombSize(scale))) }),
    expect: 'unavailable',
    cheap: true,
  },
  {
    name: 'gzip-bomb-token',
    what: 'token 200, gzip inflating to 1 GiB',
    path: 'fetch-result',
    behaviour: (scale) => ({ token: () => bomb(200, longValue('{"accessToken":"', bombSize(scale), '"}')) }),
    expect: 'not-stored',
    cheap: true,
  },
  {
    name: 'gzip-bomb-poll',
    what: 'poll 200, gzip inflating to 1 GiB',
    path: 'poll',
    behaviour: (scale) => ({
      poll: () => bomb(200, longValue('{"results":[{"resultId":"', bombSize(scale), '"}]}')),
    }),
    expect: 'not-stored',
    cheap: true,
  },
  {
    name: 'plain-500',
    what: 'result 500, 600 MiB body',
    path: 'fetch-result',
    behaviour: (scale) => ({ result: () => ({ status: 500, parts: errorBody(plainSize(scale)) }) }),
    expect: 'not-stored',
    retried: true,
    cheap: true,
  },
  {
    name: 'plain-404',
    what: 'result 404, 600 MiB body',
    path: 'fetch-result',
    behaviour: (scale) => ({ result: () => ({ status: 404, parts: errorBody(plainSize(scale)) }) }),
    expect: 'unavailable',
    cheap: true,
  },
  {
    name: 'long-string',
    what: 'a 50 MiB string field',
    path: 'fetch-result',
    behaviour: (scale) => ({
      result: ({ resultId }) => ({
        status: 200,
        parts: resultWith(resultId, ['"note":"', { fill: 'n', count: by(scale, 50 * MiB, MiB) }, '",']),
      }),
    }),
    expect: 'refused',
    cheap: true,
  },
  {
    name: 'many-reasons',
    what: '5 million reason codes (95 MB)',
    path: 'fetch-result',
    behaviour: (scale) => ({
      result: ({ resultId }) => ({
        status: 200,
        parts: resultWith(resultId, [
          '"messages":[',
          { strings: by(scale, 5_000_000, 50_000), prefix: 'REASON_' },
          '],',
        ]),
      }),
    }),
    expect: 'stored-or-refused',
    cheap: true,
  },
  {
    name: 'many-keys',
    what: '2 million keys (27 MB)',
    path: 'fetch-result',
    behaviour: (scale) => ({
      result: ({ resultId }) => ({
        status: 200,
        parts: resultWith(resultId, ['"extra":{', { keys: by(scale, 2_000_000, 20_000), prefix: 'k' }, '},']),
      }),
    }),
    expect: 'stored-or-refused',
    cheap: true,
  },
  {
    name: 'deep-nesting',
    what: '100,000-deep nesting',
    path: 'fetch-result',
    behaviour: () => ({
      result: ({ resultId }) => ({
        status: 200,
        parts: resultWith(resultId, [
          '"extra":',
          { fill: '[', count: 100_000 },
          { fill: ']', count: 100_000 },
          ',',
        ]),
      }),
    }),
    expect: 'not-stored',
    cheap: true,
  },
  {
    name: 'duplicate-images',
    what: '`images` twice: 6 MiB PASSPORT/FRONT, then 104 B',
    path: 'fetch-result',
    behaviour: (scale) => ({
      result: ({ resultId }) => ({
        status: 200,
        parts: [
          `{"resultId":${JSON.stringify(resultId)},"result":"APPROVED","identity":{"result":"APPROVED","messages":[]},`,
          '"images":[{"documentType":"PASSPORT","pageType":"FRONT","data":"',
          { image: by(scale, 6 * MiB, 512 * 1024), seed: 2 },
          '"}],"images":[{"documentType":"PASSPORT","pageType":"FRONT","data":"',
          { image: 104, seed: 3 },
          '"}],"files":[]}',
        ],
      }),
    }),
    expect: 'refused',
    cheap: true,
  },
  {
    name: 'personal-403',
    what: '403 body: name, birth date, echoed Bearer',
    path: 'fetch-result',
    behaviour: () => ({ result: ({ authorization }) => echoing(403, 7, authorization) }),
    expect: 'not-stored',
    cheap: true,
  },
  {
    name: 'personal-503',
    what: '503 body: name, birth date, echoed Bearer',
    path: 'fetch-result',
    behaviour: () => ({ result: ({ authorization }) => echoing(503, 14, authorization) }),
    expect: 'not-stored',
    retried: true,
    cheap: true,
  },
  {
    name: 'token-400-echo',
    what: 'token 400 echoing the Authorization header',
    path: 'fetch-result',
    behaviour: () => ({ token: ({ authorization }) => echoing(400, 3, authorization) }),
    expect: 'not-stored',
    cheap: true,
  },
  {
    name: 'token-expires-abc',
    what: 'token 200, expiresIn "abc"',
    path: 'fetch-result',
    behaviour: (_scale, service) => ({
      token: () =>
        jsonAnswer(200, { accessToken: service.accessToken, expiresIn: 'abc', tokenType: 'Bearer' }),
    }),
    expect: 'not-stored',
    maxWallMs: () => TOKEN_WALL_MS,
    maxTokenRequestsPerContainer: 2,
    containers: (scale) => by(scale, 10, 3),
    cheap: true,
  },
  {
    name: 'token-expires-0',
    what: 'token 200, expiresIn "0"',
    path: 'fetch-result',
    behaviour: (_scale, service) => ({
      token: () => jsonAnswer(200, { accessToken: service.accessToken, expiresIn: '0', tokenType: 'Bearer' }),
    }),
    // A token that lives no time makes no sense: refused at once like "abc" (a tiny positive one gets a floor).
    expect: 'not-stored',
    maxWallMs: () => TOKEN_WALL_MS,
    maxTokenRequestsPerContainer: 2,
    containers: (scale) => by(scale, 10, 3),
    cheap: true,
  },
  {
    name: 'token-html',
    what: 'token 200, an HTML page',
    path: 'fetch-result',
    behaviour: () => ({
      token: () => ({
        status: 200,
        contentType: 'text/html',
        parts: ['<!doctype html><html><body><h1>Maintenance</h1></body></html>'],
      }),
    }),
    expect: 'not-stored',
    maxWallMs: () => TOKEN_WALL_MS,
    maxTokenRequestsPerContainer: 2,
    containers: (scale) => by(scale, 10, 3),
    cheap: true,
  },
  {
    name: 'drip',
    what: 'result 200, one byte every 5 s, 40 s invocation',
    path: 'fetch-result',
    behaviour: (scale, service) => ({
      result: ({ resultId }) => ({
        status: 200,
        parts: normalResult(resultId),
        dripMs: by(scale, 5000, 400),
      }),
      token: () =>
        jsonAnswer(200, { accessToken: service.accessToken, expiresIn: '3600', tokenType: 'Bearer' }),
    }),
    expect: 'not-stored',
    invocationMs: (scale) => by(scale, 40_000, 10_000),
    // The invocation's end plus a second for the batch response.
    maxWallMs: (scale) => by(scale, 41_000, 11_000),
    gcEveryMs: 1000,
    cheap: false,
  },
  {
    name: 'personal-values',
    what: 'personal data in result, sections, messages, customerReference',
    path: 'fetch-result',
    behaviour: () => ({
      result: ({ resultId }) =>
        jsonAnswer(200, {
          resultId,
          transactionId: `tx-${resultId}`,
          customerReference: PLANTED_PERSONAL.name,
          result: PLANTED_PERSONAL.name,
          messages: [personalText],
          identity: { result: PLANTED_PERSONAL.birthDate, messages: [PLANTED_PERSONAL.documentNumber] },
          images: [],
          files: [],
        }),
    }),
    expect: 'stored-or-refused',
    hints: { customerReference: PLANTED_PERSONAL.name, transactionId: 'tx-personal' },
    cheap: true,
  },
  {
    name: 'huge-normal',
    what: '1 GiB result of a normal shape (64 images)',
    path: 'fetch-result',
    behaviour: (scale) => ({
      result: ({ resultId }) => {
        const images = 64;
        const each = by(scale, 12 * MiB, 96 * 1024);
        const parts: BodyPart[] = [
          `{"resultId":${JSON.stringify(resultId)},"result":"APPROVED","identity":{"result":"APPROVED","messages":[]},"images":[`,
        ];
        for (let i = 0; i < images; i++) {
          parts.push(
            `${i > 0 ? ',' : ''}{"documentType":"${i % 2 ? 'IDENTITY_CARD' : 'PASSPORT'}","pageType":"${i % 2 ? 'BACK' : 'FRONT'}","data":"`,
            { image: each, seed: i % 16 },
            '"}',
          );
        }
        parts.push('],"files":[]}');
        return { status: 200, parts };
      },
    }),
    expect: 'stored',
    cheap: true,
  },
];

/** The strings no log line, error or event may carry, by name, for a service. */
export function plantedStrings(service: HostileService): Record<string, string> {
  const { clientId, clientSecret } = service.credentials;
  return {
    name: PLANTED_PERSONAL.name,
    birthDate: PLANTED_PERSONAL.birthDate,
    documentNumber: PLANTED_PERSONAL.documentNumber,
    accessToken: service.accessToken,
    clientSecret,
    basicCredentials: Buffer.from(`${clientId}:${clientSecret}`).toString('base64'),
  };
}
