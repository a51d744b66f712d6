/**
 * Run by hand: `npx tsx test/manual/parser-compare.ts <stream-json|streamparser|own> [MB]`. Feeds one JSON
 * result holding a single base64 `data` string of MB megabytes (default 100) in 64 KB chunks to a
 * streaming JSON parser and prints how long it took, in how many pieces the long string was handed over,
 * the largest piece and the process's peak RSS (VmHWM). One parser per process, so peaks do not mix.
 * The figures are quoted in docs/pipeline.md ("Streaming parser").
 */
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@streamparser/json';
import { jsonParser } from 'stream-json/core/parser.js';

const which = process.argv[2] ?? 'stream-json';
const mb = Number(process.argv[3] ?? 100);
const CHUNK = 64 * 1024;

const head = Buffer.from('{"transactionId":"tx-1","images":[{"data":"');
const tail = Buffer.from('","documentType":"PASSPORT","pageType":"FRONT"}],"result":"APPROVED"}');
// One 64 KB block of base64 repeated: the body is never held whole, as in the pipeline.
const block = Buffer.from(Buffer.alloc((CHUNK / 4) * 3, 7).toString('base64'));
const blocks = Math.ceil((mb * 1024 * 1024) / block.length);

function* chunks(): Generator<Buffer> {
  yield head;
  for (let i = 0; i < blocks; i++) yield block;
  yield tail;
}

function vmHwmMb(): number {
  const line = readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return Math.round(Number(line?.[1]) / 1024);
}

let pieces = 0;
let largest = 0;
let total = 0;
const piece = (length: number) => {
  pieces++;
  total += length;
  if (length > largest) largest = length;
};

const { JsonTokenizer } = await import('../../shared/stream/json-tokenizer');
const start = performance.now();
void 0;
if (which === 'stream-json') {
  const parse = jsonParser({ packStrings: false, packKeys: true, streamKeys: false, streamValues: true });
  const decoder = new TextDecoder();
  const take = (tokens: unknown) => {
    const list = (tokens as { values?: { name: string; value?: string }[] })?.values ?? [];
    for (const token of list) {
      if (token.name === 'stringChunk') piece(token.value!.length);
    }
  };
  for (const chunk of chunks()) take(parse(decoder.decode(chunk, { stream: true })));
  take((parse as unknown as (v: symbol) => unknown)(Symbol.for('object-stream.none')));
} else if (which === 'streamparser') {
  const tokenizer = new Tokenizer({ stringBufferSize: CHUNK });
  tokenizer.onToken = ({ value }) => {
    if (typeof value === 'string') piece(value.length);
  };
  for (const chunk of chunks()) tokenizer.write(chunk);
} else {
  const noop = () => {};
  const tokenizer = new JsonTokenizer({
    startObject: noop,
    endObject: noop,
    startArray: noop,
    endArray: noop,
    key: noop,
    scalar: noop,
    stringStart: noop,
    stringPiece: (bytes) => piece(bytes.length),
    stringEnd: noop,
  });
  for (const chunk of chunks()) tokenizer.write(chunk);
  tokenizer.end();
}
const ms = performance.now() - start;
console.log(
  JSON.stringify({
    parser: which,
    stringMB: mb,
    seconds: Math.round(ms) / 1000,
    MBps: Math.round((mb / ms) * 1000),
    pieces,
    largestPiece: largest,
    charsSeen: total,
    vmHwmMB: vmHwmMb(),
  }),
);
