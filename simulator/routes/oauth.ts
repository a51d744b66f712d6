/** POST /api/v2/oauth/token (§4.6): HTTP Basic client credentials → an expiring Bearer token. */
import { PATHS } from '../../shared/api/enums';
import { tokenRequestSchema } from '../../shared/api/schemas';
import { exact, type Route } from '../http';
import type { SimulatorState } from '../state';

/** The OAuth route. */
export function oauthRoutes(state: SimulatorState): Route[] {
  return [
    {
      method: 'POST',
      pattern: exact(PATHS.oauthToken),
      auth: 'basic',
      handler: ({ body }) => {
        const { scopes } = state.read(tokenRequestSchema, body, 'token request');
        const accessToken = state.issueToken(scopes);
        const expiresIn = String(Math.floor(state.tokenTtlMs / 1000));
        return { accessToken, expiresIn, tokenType: 'Bearer' };
      },
    },
  ];
}
