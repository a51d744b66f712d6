/** GET /api/v2/poll (§4.7) and GET /api/v2/result/{resultId} (§4.9), with the §3 lifecycle. */
import { PATHS } from '../../shared/api/enums';
import type { VerificationResultDocument } from '../../shared/api/schemas';
import { exact, notFound, type Route, safeDecode, serializeResult, unavailable } from '../http';
import type { SimulatorState } from '../state';

/** The poll and result routes. */
export function resultRoutes(state: SimulatorState): Route[] {
  return [
    {
      method: 'GET',
      pattern: exact(PATHS.poll),
      auth: 'bearer',
      scope: 'productapi.poll.read',
      handler: () => ({ results: state.pollRecords() }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v2\/result\/([^/]+)$/,
      auth: 'bearer',
      scope: 'productapi.result.read',
      handler: ({ params }) => {
        const resultId = safeDecode(params[0]!);
        const r = state.results.get(resultId);
        if (!r) throw notFound();
        const fault = state.takeResultFault(r);
        // A 503 leaves the poll record, as any failed retrieval does.
        if (fault === 'unavailable') throw unavailable();
        // §3: a successful retrieval removes the poll record; the result stays until retention ends.
        delete r.pollRecord;
        state.resultFetches[resultId] = (state.resultFetches[resultId] ?? 0) + 1;
        if (fault === 'dataNotBase64') return serializeResult(withDataNotBase64(r.doc));
        return serializeResult(r.doc);
      },
    },
  ];
}

/** `doc` with its first image's `data` not base64 (or, without images, one such image added). */
function withDataNotBase64(doc: VerificationResultDocument): VerificationResultDocument {
  const images = doc.images ?? [];
  const broken = { ...(images[0] ?? { type: 'PASSPORT' }), data: 'demo: this is not base64 !' };
  return { ...doc, images: [broken as (typeof images)[number], ...images.slice(1)] };
}
