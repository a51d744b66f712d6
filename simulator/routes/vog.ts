/** POST /api/v2/vog (§4.12), GET /api/v2/reasons (§4.13) and POST /api/v2/facelinkpackage (§4.10). */
import { PATHS } from '../../shared/api/enums';
import { faceLinkPackageRequestSchema, vogRequestSchema } from '../../shared/api/schemas';
import { exact, notFound, type Route } from '../http';
import { createPrng, deriveSeed } from '../prng';
import { ALL_REASONS } from '../reasons';
import type { SimulatorState } from '../state';
import { checkUser } from './common';

/** The VOG, reasons and FaceLink package routes. */
export function vogRoutes(state: SimulatorState): Route[] {
  return [
    {
      method: 'POST',
      pattern: exact(PATHS.vog),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = state.read(vogRequestSchema, body, 'VOG request');
        const userId = checkUser(state, input.userId);
        const t = state.newTransaction('vog', {
          userId,
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          vog: {
            createdAt: state.now(),
            ...(input.hasExistingVog ? { hasExistingVog: true } : {}),
            givenNames: input.givenNames,
            surname: input.surname,
            companyName: input.vogRequest.companyName,
            profiles: input.vogRequest.profiles,
          },
        });
        state.schedule(t);
        return { transactionId: t.transactionId };
      },
    },
    {
      method: 'GET',
      pattern: exact(PATHS.reasons),
      auth: 'bearer',
      handler: () => ({ reasons: ALL_REASONS }),
    },
    {
      method: 'POST',
      pattern: exact(PATHS.faceLinkPackage),
      auth: 'bearer',
      handler: ({ body }) => {
        const { token } = state.read(faceLinkPackageRequestSchema, body, 'FaceLink package');
        const transactionId = state.faceLinkTokens.get(token);
        if (transactionId === undefined) throw notFound();
        // §3.4: the package is deleted after it has been retrieved once.
        state.faceLinkTokens.delete(token);
        // Content from the seed and the transaction's creation order, never from its (random) id.
        const seq = state.transactions.get(transactionId)?.seq ?? 0;
        const packagePrng = createPrng(deriveSeed(state.seed, `package:${seq}`));
        const packageData = Buffer.from(Array.from({ length: 2048 }, () => packagePrng.int(256))).toString(
          'base64',
        );
        return { packageData, transactionId };
      },
    },
  ];
}
