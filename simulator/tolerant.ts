/**
 * Tolerant reading of request bodies, as a server does it: fields the spec does not define are dropped
 * before the shared (strict) request schema checks the rest, so a client that sends an extra field
 * (one public client posts face verify with `valid_challenges`) is served, while everything the spec
 * requires or forbids is still refused. The dropped field names are reported for debug logging.
 */
import type * as z from 'zod/mini';
import { isJsonObject } from '../shared/json-object';

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodMiniType>;
  innerType?: z.ZodMiniType;
  element?: z.ZodMiniType;
  in?: z.ZodMiniType;
}

function defOf(schema: z.ZodMiniType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/**
 * `value` without the object keys that `schema` does not define, at any depth (objects, arrays,
 * optional and nullable wrappers). Each dropped key's path is pushed to `dropped` (`images.0.extra`).
 * Values of a type the schema does not expect are left alone for the schema to refuse.
 */
export function stripUnknownFields(
  schema: z.ZodMiniType,
  value: unknown,
  dropped: string[] = [],
  path: string[] = [],
): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return def.innerType ? stripUnknownFields(def.innerType, value, dropped, path) : value;
    case 'pipe':
      return def.in ? stripUnknownFields(def.in, value, dropped, path) : value;
    case 'array':
      if (!Array.isArray(value) || !def.element) return value;
      return value.map((item, i) => stripUnknownFields(def.element!, item, dropped, [...path, String(i)]));
    case 'object': {
      if (!isJsonObject(value) || !def.shape) return value;
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) {
        const field = def.shape[key];
        if (field === undefined) dropped.push([...path, key].join('.'));
        else out[key] = stripUnknownFields(field, v, dropped, [...path, key]);
      }
      return out;
    }
    default:
      return value;
  }
}
