/** `idv service result get RESULT_ID [--out DIR]` (§4.9): the service's copy, not the stored one. */
import { constants } from 'node:fs';
import { access, mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  RESULT_FILE_DOCUMENT_TYPES,
  RESULT_IMAGE_DOCUMENT_TYPES,
  RESULT_IMAGE_PAGE_TYPES,
} from '../../shared/api/enums';
import type { VerificationResultDocument } from '../../shared/api/schemas';
import { NotFoundError, serviceErrorFields, statusWithCode } from '../../shared/client/errors';
import { sniffContentType } from '../../shared/image';
import { decodeBase64Data } from './base64';
import { UsageError } from './errors';
import { str } from './flags';
import { warnIfCommittable } from './out-dir';
import type { CliCommand } from './types';

/** One decoded image or file of a result and the name it is written under. */
export interface DecodedAttachment {
  readonly fileName: string;
  readonly bytes: Buffer;
}

/**
 * Splits a result into `result.json` (each base64 `data` replaced by its file name) and the decoded
 * attachments, numbered across images then files: `01-PASSPORT-FRONT.jpg`, `02-TRANSACTION_REPORT.pdf`.
 * Name parts come only from known enum values (else `UNKNOWN`) and the extension from the bytes, so
 * nothing from the response can choose a path.
 */
export function splitResult(result: VerificationResultDocument): {
  json: VerificationResultDocument;
  attachments: DecodedAttachment[];
} {
  const attachments: DecodedAttachment[] = [];
  const total = (result.images?.length ?? 0) + (result.files?.length ?? 0);
  const width = Math.max(2, String(total).length);
  const next = (parts: string[], data: string) => {
    // No data (the schema parses a missing one as ''), or not base64 in any form: kept as it came.
    const bytes = data === '' ? undefined : decodeBase64Data(data);
    if (!bytes) return data;
    const number = String(attachments.length + 1).padStart(width, '0');
    const fileName = `${[number, ...parts].join('-')}.${sniffContentType(bytes).extension}`;
    attachments.push({ fileName, bytes });
    return fileName;
  };
  const images = result.images?.map((image) => ({
    ...image,
    data: next(
      [
        known(RESULT_IMAGE_DOCUMENT_TYPES, image.documentType),
        known(RESULT_IMAGE_PAGE_TYPES, image.pageType),
      ],
      image.data,
    ),
  }));
  const files = result.files?.map((file) => ({
    ...file,
    data: next([known(RESULT_FILE_DOCUMENT_TYPES, file.documentType)], file.data),
  }));
  return {
    json: { ...result, ...(images && { images }), ...(files && { files }) },
    attachments,
  };
}

/**
 * The result as a terminal shows it: each base64 `data` (megabytes of text) replaced by a note of what it
 * is and its size. The bytes go only to files (`--out`).
 */
export function withDataNotes(result: VerificationResultDocument): VerificationResultDocument {
  const note = (data: string) => {
    const bytes = data === '' ? undefined : decodeBase64Data(data);
    if (!bytes) return data;
    const kind = sniffContentType(bytes).extension.toUpperCase();
    return `${kind} file, ${bytes.length} bytes (not shown; write it with --out DIR)`;
  };
  const images = result.images?.map((image) => ({ ...image, data: note(image.data) }));
  const files = result.files?.map((file) => ({ ...file, data: note(file.data) }));
  return { ...result, ...(images && { images }), ...(files && { files }) };
}

function known(values: readonly string[], value: string | undefined): string {
  return value !== undefined && values.includes(value) ? value : 'UNKNOWN';
}

const COMMAND = 'service result get';

/**
 * `idv service result get`: fetches the result from the service; prints it (images and files as notes),
 * or with `--out` writes it and its decoded attachments to DIR.
 */
export const resultGetCommand: CliCommand = {
  path: ['service', 'result', 'get'],
  summary: 'fetch a result from the service (GET /api/v2/result/{resultId}); removes its poll record',
  usage: 'service result get RESULT_ID [--out DIR]',
  help: `  RESULT_ID   from a poll record or a result webhook
  --out DIR   write DIR/result.json (base64 data replaced by file names) and every image and file
              decoded to its own file (01-PASSPORT-FRONT.jpg, 02-TRANSACTION_REPORT.pdf, …);
              the directory and files are readable by you only. Without --out the result is printed
              with each image and file shown as a note of its type and size, never its bytes.
This asks the service, and the service then removes the poll record, so the pipeline's poll no longer
sees it. To read what the pipeline stored, use "idv results get RESULT_ID".`,
  options: { out: { type: 'string' } },
  positionals: true,
  async run(ctx) {
    const [resultId, ...extra] = ctx.positionals;
    if (!resultId) throw new UsageError('missing RESULT_ID', COMMAND);
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, COMMAND);
    const out = str(ctx, 'out');
    // Fetching removes the poll record (§3), so a directory we cannot write must fail before the fetch.
    const dir = out === undefined ? undefined : await prepareOutDir(resolve(ctx.io.cwd, out));
    if (dir !== undefined) warnIfCommittable(dir, ctx.io);
    const result = await ctx
      .client()
      .getResult(resultId)
      .catch((error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
        throw new NotFoundError(
          `no result with resultId ${resultId} (${statusWithCode(error)}): unknown, or removed after the retention period`,
          serviceErrorFields(error),
          { cause: error },
        );
      });
    if (dir === undefined) return withDataNotes(result);

    const { json, attachments } = splitResult(result);
    await writeFile(join(dir, 'result.json'), `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
    for (const attachment of attachments) {
      await writeFile(join(dir, attachment.fileName), attachment.bytes, { mode: 0o600 });
    }
    return {
      resultId,
      transactionId: result.transactionId,
      result: result.result,
      out: dir,
      files: ['result.json', ...attachments.map((a) => a.fileName)],
    };
  },
};

/** Creates DIR (private: results hold personal data) and checks it is writable; a usage error otherwise. */
async function prepareOutDir(dir: string): Promise<string> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK);
    if (!(await stat(dir)).isDirectory())
      throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `cannot write to --out ${dir}${typeof code === 'string' ? ` (${code})` : ''}; nothing was fetched`,
      COMMAND,
    );
  }
  return dir;
}
