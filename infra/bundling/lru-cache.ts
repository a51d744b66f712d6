/**
 * Stands in for `mnemonist/lru-cache` in the function bundles (see `LAMBDA_BUNDLING` in
 * `infra/constructs/pipeline-function.ts`). The DynamoDB client builds an endpoint-discovery cache
 * (`@aws-sdk/endpoint-cache`) on this class whether discovery is on or not; the package's typed-array
 * LRU and its iterator helpers are 7 KiB of every bundle with a DynamoDB client. This is the same LRU
 * over a `Map` (insertion order is recency order), with the methods the endpoint cache calls, tested
 * against the real package (test/infra/bundle-size.test.ts). Tests, the local run and the CLI are not
 * bundled and keep the package.
 */
export default class LRUCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new Error('LRUCache: capacity must be a positive number');
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Whether `key` is held (does not make it recent). */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value of `key` without making it recent. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** The value of `key`, which becomes the most recent. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Sets `key`, the most recent now; past the capacity the least recent entry goes. */
  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K);
    return this;
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
  }
}
