/**
 * The DynamoDB writes and reads of a result (BatchGetItem, PutItem, UpdateItem) as the document client
 * takes them, sent as signed JSON requests of their own (`direct-json.ts`) where the client allows it, and
 * through the document client otherwise (an endpoint that is not plain SigV4, a traced client whose
 * subsegments are wanted, a unit test's stubbed `send`). Items are marshalled and unmarshalled as the
 * pipeline's document client does it (`removeUndefinedValues`).
 */
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type DynamoDBDocumentClient,
  PutCommand,
  type PutCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { DirectJson, type JsonRoute, type JsonService } from './direct-json';

/** DynamoDB's JSON protocol and the codes its SDK retries. */
const DYNAMODB: JsonService = {
  name: 'DynamoDB',
  targetPrefix: 'DynamoDB_20120810',
  contentType: 'application/x-amz-json-1.0',
  signingName: 'dynamodb',
  endpointCommand: PutItemCommand,
  retryableCodes: new Set([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'TransactionInProgressException',
    'InternalServerError',
    'ServiceUnavailable',
  ]),
};

const MARSHALL = { removeUndefinedValues: true } as const;

type Item = Record<string, unknown>;

/** The document client's BatchGetItem answer, as far as the store reads it. */
export interface BatchGetAnswer {
  readonly Responses?: Record<string, Item[]>;
  readonly UnprocessedKeys?: Record<string, { Keys?: Item[] }>;
}

/** BatchGetItem, PutItem and UpdateItem of one document client, direct where it can be. */
export class DocumentRequests {
  readonly #direct: DirectJson | undefined;

  /** `direct: false` sends everything through the document client. */
  constructor(
    readonly client: DynamoDBDocumentClient,
    direct = true,
  ) {
    // The document client's config is its base client's: endpoint, credentials, attempts.
    this.#direct = direct ? new DirectJson(client as unknown as DynamoDBClient, DYNAMODB) : undefined;
  }

  /** Where the direct requests go; undefined when everything goes through the document client. */
  route(): Promise<JsonRoute | undefined> {
    return this.#direct?.route() ?? Promise.resolve(undefined);
  }

  async batchGet(input: BatchGetCommandInput): Promise<BatchGetAnswer> {
    const route = await this.#direct?.route();
    if (!route) return this.client.send(new BatchGetCommand(input));
    const requestItems: Record<string, unknown> = {};
    for (const [table, request] of Object.entries(input.RequestItems ?? {})) {
      requestItems[table] = { ...request, Keys: (request.Keys ?? []).map((key) => marshall(key, MARSHALL)) };
    }
    const answer = await this.#direct!.call(route, 'BatchGetItem', { ...input, RequestItems: requestItems });
    const responses: Record<string, Item[]> = {};
    for (const [table, items] of Object.entries((answer.Responses ?? {}) as Record<string, never[]>)) {
      responses[table] = items.map((item) => unmarshall(item));
    }
    const unprocessed: Record<string, { Keys?: Item[] }> = {};
    for (const [table, request] of Object.entries(
      (answer.UnprocessedKeys ?? {}) as Record<string, { Keys?: never[] }>,
    )) {
      unprocessed[table] = { Keys: (request.Keys ?? []).map((key) => unmarshall(key)) };
    }
    return { Responses: responses, UnprocessedKeys: unprocessed };
  }

  /** PutItem; a failed condition throws `ConditionalCheckFailedException` (with `Item` when asked for). */
  put(input: PutCommandInput): Promise<void> {
    return this.#write('PutItem', input, { Item: marshall(input.Item ?? {}, MARSHALL) }, () =>
      this.client.send(new PutCommand(input)),
    );
  }

  /** UpdateItem; a failed condition throws `ConditionalCheckFailedException` (with `Item` when asked for). */
  update(input: UpdateCommandInput): Promise<void> {
    return this.#write('UpdateItem', input, { Key: marshall(input.Key ?? {}, MARSHALL) }, () =>
      this.client.send(new UpdateCommand(input)),
    );
  }

  /** A write with its item or key marshalled (`marshalled`) and its values; `viaSdk` when not direct. */
  async #write(
    operation: 'PutItem' | 'UpdateItem',
    input: PutCommandInput | UpdateCommandInput,
    marshalled: Record<string, unknown>,
    viaSdk: () => Promise<unknown>,
  ): Promise<void> {
    const route = await this.#direct?.route();
    if (!route) {
      await viaSdk();
      return;
    }
    const values = input.ExpressionAttributeValues;
    await this.#direct!.call(route, operation, {
      ...input,
      ...marshalled,
      ...(values && { ExpressionAttributeValues: marshall(values, MARSHALL) }),
    });
  }
}
