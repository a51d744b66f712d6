/** GET /api/v2/poll (§4.7) and GET /api/v2/result/{resultId} (§4.9), with the §3 lifecycle. */
import { PATHS } from '../../shared/api/enums';
import { exact, notFound, type Route, safeDecode, serializeResult } from '../http';
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
        // §3: a successful retrieval removes the poll record; the result stays until retention ends.
        delete r.pollRecord;
        state.resultFetches[resultId] = (state.resultFetches[resultId] ?? 0) + 1;
        return serializeResult(r.doc);
      },
    },
  ];
}
