import { API_TOKEN_PREFIX, hashToken, toLiveApiToken } from "../auth/api-tokens";
import { apiTokenPrincipal, authenticate, bearerToken } from "../auth/authenticate";
import { principalKey, type Principal } from "../auth/principal";
import type { Deps } from "../deps";
import { afterSharedCount, countRequest, countsInSharedTable, type RateState } from "./rate-limit";
import { findApiTokenAndCount } from "./rate-limit-store";

/**
 * Authenticates a /v1 request and counts it against its principal's rate limit. An API token on
 * PostgreSQL is found and counted by one statement (findApiTokenAndCount): the path of every API
 * client's every request, where a second round trip was a fifth of the handler's own CPU. Every
 * other case, and an unknown or revoked token, takes the ordinary path: authenticate (which
 * answers 401 with its reason), then count.
 */
export async function authenticateAndCount(
  req: Request,
  deps: Deps,
  limitFor: (kind: Principal["kind"]) => number,
): Promise<{ principal: Principal; rate: RateState }> {
  const raw = bearerToken(req);
  if (raw !== null && raw.startsWith(API_TOKEN_PREFIX) && countsInSharedTable(deps.db)) {
    const found = await findApiTokenAndCount(deps.db, hashToken(raw), limitFor("api"));
    if (found) {
      afterSharedCount(deps.db);
      return { principal: apiTokenPrincipal(toLiveApiToken(found.token, found.workspace)), rate: found.state };
    }
  }
  const principal = await authenticate(req, deps);
  return { principal, rate: await countRequest(deps.db, principalKey(principal), limitFor(principal.kind)) };
}
