import { Names } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { IdvPipelineValidationError } from './idv-pipeline-settings';

/** What a physical name may hold: letters, digits and dashes, starting with a letter (lower case). */
const NAME_PREFIX = /^[a-z][a-z0-9-]{0,39}$/;

/**
 * The physical names of one pipeline. With a `prefix` (the app's `idv-pipeline-<env>`) every resource
 * that takes a name gets `<prefix>-<purpose>`, as operators and the dashboards know them. Without one,
 * only the names the pipeline must know while it synthesises (the Athena workgroup and Glue database its
 * saved queries name, the projector rule its key policy names, WAF metric names) are set, derived from
 * the construct path and its stack (Names.uniqueResourceName): two pipelines in one stack, or two stacks
 * in one account and region, never collide. Everything else is left to CloudFormation.
 */
export class ResourceNames {
  /** The given prefix, or `undefined` when names are generated. */
  readonly prefix: string | undefined;
  readonly #scope: IConstruct;
  readonly #generated: string;

  constructor(scope: IConstruct, prefix: string | undefined) {
    if (prefix !== undefined && !NAME_PREFIX.test(prefix)) {
      throw new IdvPipelineValidationError(
        'namePrefix',
        'must be 1-40 lower-case letters, digits and dashes, starting with a letter',
        { where: scope.node.path },
      );
    }
    this.prefix = prefix;
    this.#scope = scope;
    this.#generated = Names.uniqueResourceName(scope, { maxLength: 40, separator: '-' }).toLowerCase();
  }

  /**
   * `<prefix>-<purpose>` (the prefix alone without a purpose) when a prefix was given; else `undefined`,
   * so that CloudFormation names the resource.
   */
  optional(purpose?: string): string | undefined {
    if (this.prefix === undefined) return undefined;
    return purpose === undefined ? this.prefix : `${this.prefix}-${purpose}`;
  }

  /**
   * A name the pipeline needs at synth time: `<prefix>-<purpose>`, or a generated unique one. A generated
   * name longer than `maxLength` (the resource's limit, or that of a name derived from it) is shortened
   * by `Names.uniqueResourceName`, which keeps a hash of the whole path, so it stays unique.
   */
  required(purpose: string, maxLength = 64): string {
    const name = `${this.prefix ?? this.#generated}-${purpose}`;
    if (this.prefix !== undefined || name.length <= maxLength) return name;
    const base = Names.uniqueResourceName(this.#scope, {
      maxLength: maxLength - purpose.length - 1,
      separator: '-',
    }).toLowerCase();
    return `${base}-${purpose}`;
  }

  /** The Glue database name (lower case, underscores): `idv_pipeline_staging` for `idv-pipeline-staging`. */
  glueDatabase(): string {
    return (this.prefix ?? this.#generated).replace(/-/g, '_');
  }
}
