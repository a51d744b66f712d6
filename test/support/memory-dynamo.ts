/**
 * In-memory DynamoDB tables behind aws-sdk-client-mock's DynamoDBDocumentClient stub, for unit tests that
 * run the real stores at the SDK level: Get, BatchGet, Put, Delete, the `SET … REMOVE …` updates the
 * stores send and index queries of one partition key (`#name = :value`), every table keyed by `resultId`. Conditions are not evaluated: the tests that use it run one
 * writer at a time, and the conditional paths have their own tests against the emulator.
 */
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';

type Item = Record<string, unknown>;

/** Tables by name, items by partition key. */
export class MemoryTables {
  readonly tables = new Map<string, Map<string, Item>>();

  table(name: string): Map<string, Item> {
    let table = this.tables.get(name);
    if (!table) {
      table = new Map();
      this.tables.set(name, table);
    }
    return table;
  }

  /** Every item of every table. */
  items(): Item[] {
    return [...this.tables.values()].flatMap((table) => [...table.values()]);
  }

  /** Routes the document client commands of `stub` to these tables. */
  attach(stub: AwsClientStub<DynamoDBDocumentClient>): void {
    const key = (k: Record<string, unknown> | undefined) => String(k?.['resultId']);
    stub.on(GetCommand).callsFake((input) => {
      const item = this.table(input.TableName!).get(key(input.Key));
      return { Item: item && structuredClone(item) };
    });
    stub.on(BatchGetCommand).callsFake((input) => ({
      Responses: Object.fromEntries(
        Object.entries(input.RequestItems ?? {}).map(([name, request]) => [
          name,
          ((request as { Keys?: Record<string, unknown>[] }).Keys ?? []).flatMap((k) => {
            const item = this.table(name).get(key(k));
            return item ? [structuredClone(item)] : [];
          }),
        ]),
      ),
    }));
    stub.on(QueryCommand).callsFake((input) => {
      // An index query of one partition key: the items whose attribute has that value (one page).
      const [left, right] = (input.KeyConditionExpression ?? '')
        .split('=')
        .map((part: string) => part.trim());
      const attribute = input.ExpressionAttributeNames?.[left!] ?? left!;
      const value = input.ExpressionAttributeValues?.[right!];
      const items = [...this.table(input.TableName!).values()].filter((item) => item[attribute] === value);
      return { Items: items.map((item) => structuredClone(item)) };
    });
    stub.on(PutCommand).callsFake((input) => {
      this.table(input.TableName!).set(key(input.Item), structuredClone(input.Item!));
      return {};
    });
    stub.on(DeleteCommand).callsFake((input) => {
      const table = this.table(input.TableName!);
      const old = table.get(key(input.Key));
      table.delete(key(input.Key));
      return old ? { Attributes: old } : {};
    });
    stub.on(UpdateCommand).callsFake((input) => {
      const table = this.table(input.TableName!);
      const item: Item = table.get(key(input.Key)) ?? { ...input.Key };
      applyUpdate(
        item,
        input.UpdateExpression ?? '',
        input.ExpressionAttributeNames,
        input.ExpressionAttributeValues,
      );
      table.set(key(input.Key), item);
      return {};
    });
  }
}

/** Applies `SET a = :x, #b = :y REMOVE c, d` to `item`. */
function applyUpdate(
  item: Item,
  expression: string,
  names: Record<string, string> = {},
  values: Record<string, unknown> = {},
): void {
  const name = (token: string) => names[token.trim()] ?? token.trim();
  const set = /SET (.*?)(?= REMOVE |$)/.exec(expression)?.[1];
  const remove = /REMOVE (.*?)(?= SET |$)/.exec(expression)?.[1];
  for (const assignment of set?.split(',') ?? []) {
    const [left, right] = assignment.split('=');
    item[name(left!)] = values[right!.trim()];
  }
  for (const attribute of remove?.split(',') ?? []) delete item[name(attribute)];
}
