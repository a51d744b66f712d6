/**
 * The JSON Schemas of the events' `detail`, one per detail type (the files in `./schemas/`, which the
 * stack also registers in its schema registry). For consumers: validate what arrives, generate types.
 */

import type { DetailType } from './names';
import documentsUploaded from './schemas/VerificationDocumentsUploaded.schema.json';
import resultChanged from './schemas/VerificationResultChanged.schema.json';
import resultErased from './schemas/VerificationResultErased.schema.json';
import resultStored from './schemas/VerificationResultStored.schema.json';
import resultUnavailable from './schemas/VerificationResultUnavailable.schema.json';

/** A JSON Schema document (draft 2020-12), as parsed JSON. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** The JSON Schema of the `detail` of each detail type. */
export const EVENT_DETAIL_SCHEMAS: Readonly<Record<DetailType, JsonSchema>> = {
  VerificationResultStored: resultStored,
  VerificationResultUnavailable: resultUnavailable,
  VerificationDocumentsUploaded: documentsUploaded,
  VerificationResultErased: resultErased,
  VerificationResultChanged: resultChanged,
};
