import * as fs from 'node:fs';
import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventschemas from 'aws-cdk-lib/aws-eventschemas';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { archiveNameOfBus, DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';

/** Properties of {@link EventBus}. */
export interface EventBusProps {
  /** Name of the bus, e.g. `idv-pipeline-staging`. */
  readonly busName: string;
  /** The stack key: encrypts the events on the bus and in the archive. */
  readonly encryptionKey: kms.IKey;
  /** Days the archive keeps events for replay (at least the result retention is useful). */
  readonly archiveRetentionDays: number;
  /** Folder of the `<DetailType>.schema.json` files (JSON Schema of the event `detail`). */
  readonly schemaDirectory: string;
}

/**
 * The custom event bus downstream systems subscribe to, an archive of everything the pipeline
 * publishes (replay after a consumer outage) and a schema registry with one schema per detail type.
 */
export class EventBus extends Construct {
  /** The bus. */
  readonly bus: events.EventBus;
  /** The archive, named `<busName>-archive` so `idv events replay --bus NAME` finds it without lookups. */
  readonly archive: events.Archive;
  /** Detail types whose schema was found and registered. */
  readonly registeredSchemas: string[] = [];

  constructor(scope: Construct, id: string, props: EventBusProps) {
    super(scope, id);
    // The stack key encrypts the events on the bus and the rule patterns and targets (AWS owned key
    // otherwise). CDK adds the key-policy statement EventBridge needs, bound to this bus by aws:SourceArn,
    // aws:SourceAccount and the kms:EncryptionContext of the bus ARN. Publishers need no key grant:
    // EventBridge encrypts as its own service principal. No bus DLQ: the events it would catch are those
    // a disabled or deleted key cannot encrypt, and a queue on the same key could not take them either.
    // Schema discovery does not work on such a bus; the registry below is written, not discovered.
    this.bus = new events.EventBus(this, 'Bus', {
      eventBusName: props.busName,
      kmsKey: props.encryptionKey,
    });
    // A fixed name lets `idv events replay --bus NAME` find the archive without a stack lookup. On a stack
    // deployed before the name was set, CloudFormation replaces the archive (its events are not kept).
    // `bus.archive()` takes no key, so the archive is built directly, in the same place in the tree.
    // Its key-policy statement (from CDK) is bound to the bus by the kms:EncryptionContext condition. The
    // bus goes in by name: its ARN attribute in the key policy would make the key depend on the bus,
    // which depends on the key.
    this.archive = new events.Archive(this.bus, 'Archive', {
      sourceEventBus: events.EventBus.fromEventBusName(this, 'BusByName', props.busName),
      archiveName: archiveNameOfBus(props.busName),
      description: 'Every event of the pipeline, for replay to consumers after an outage.',
      eventPattern: { source: [EVENT_SOURCE] },
      retention: Duration.days(props.archiveRetentionDays),
      kmsKey: props.encryptionKey,
    });
    this.archive.node.addDependency(this.bus);

    const registry = new eventschemas.CfnRegistry(this, 'SchemaRegistry', {
      registryName: `${props.busName}-schemas`,
      description: 'Schemas of the events the identity verification pipeline publishes.',
    });
    for (const detailType of Object.values(DETAIL_TYPES)) {
      const file = path.join(props.schemaDirectory, `${detailType}.schema.json`);
      // The schema files are written with the event publisher; until one exists the stack simply
      // registers the others, so infra does not block on that work.
      if (!fs.existsSync(file)) continue;
      const detailSchema = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      new eventschemas.CfnSchema(this, `${detailType}Schema`, {
        registryName: registry.attrRegistryName,
        schemaName: `${EVENT_SOURCE}@${detailType}`,
        type: 'JSONSchemaDraft4',
        description: `The ${detailType} event (source ${EVENT_SOURCE}).`,
        content: JSON.stringify(eventEnvelopeSchema(detailType, detailSchema)),
      });
      this.registeredSchemas.push(detailType);
    }
  }
}

/**
 * Wraps a `detail` schema into the schema of the whole EventBridge event, as the registry stores them.
 * Definitions move to the root so that `#/$defs/...` and `#/definitions/...` references still resolve.
 */
export function eventEnvelopeSchema(
  detailType: string,
  detailSchema: Record<string, unknown>,
): Record<string, unknown> {
  const { $schema: _schema, $id: _id, $defs, definitions, ...detail } = detailSchema;
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: detailType,
    type: 'object',
    required: ['detail-type', 'source', 'detail'],
    properties: {
      version: { type: 'string' },
      id: { type: 'string' },
      'detail-type': { type: 'string', enum: [detailType] },
      source: { type: 'string', enum: [EVENT_SOURCE] },
      account: { type: 'string' },
      time: { type: 'string', format: 'date-time' },
      region: { type: 'string' },
      resources: { type: 'array', items: { type: 'string' } },
      detail,
    },
    ...($defs !== undefined && { $defs }),
    ...(definitions !== undefined && { definitions }),
  };
}
