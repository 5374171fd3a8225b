import { looksLikeJwt } from "../access-tokens/board-token-jwt";
import type { Deps } from "../deps";
import { DomainError } from "../errors";
import { findLiveApiToken, type LiveApiToken } from "./api-tokens";
import type { ApiPrincipal, Principal } from "./principal";
import { sessionPrincipal } from "./session-principal";
import { verifyBoardAccess, type BoardAccessRefusal } from "./verify-board-access";

const unauthenticated = (message: string) => new DomainError("unauthenticated", message);

const BOARD_TOKEN_REFUSED: Partial<Record<BoardAccessRefusal, string>> = {
  expired: "The board access token has expired",
  revoked: "The board access token was revoked",
};

/** The bearer credential of a request, or null when there is no Authorization header. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) throw unauthenticated("The Authorization header must be 'Bearer <token>'");
  return match[1];
}

/** Resolves an API token, a board access token or (without an Authorization header) a web UI session; anything missing, unknown, revoked or expired is 401. */
export async function authenticate(req: Request, deps: Deps): Promise<Principal> {
  const raw = bearerToken(req);
  if (raw === null) {
    // The web UI calls /v1 with its next-auth session cookie instead of a token (README "Web UI").
    const session = await sessionPrincipal(req, deps);
    if (session) return session;
    throw unauthenticated("Missing Authorization header");
  }
  if (looksLikeJwt(raw)) {
    // No target yet: the workspace and board a route names are checked where it reads them (404, not 401).
    const access = await verifyBoardAccess(deps, raw);
    if (!access.ok) throw unauthenticated(BOARD_TOKEN_REFUSED[access.reason] ?? "Invalid board access token");
    return access.principal;
  }
  const token = await findLiveApiToken(deps.db, raw);
  if (!token) throw unauthenticated("Unknown or revoked API token");
  return apiTokenPrincipal(token);
}

export function apiTokenPrincipal(token: LiveApiToken): ApiPrincipal {
  return { kind: "api", tokenId: token.id, scopes: token.scopes, webhooks: token.webhooks, prefix: token.prefix, workspace: token.workspace };
}
