import { authorizeWorkspace } from "../auth/authorize";
import { hasScope, principalKey, type Principal } from "../auth/principal";
import { insufficientRole, managesAnyWorkspace } from "../auth/roles";
import type { Scope, Workspace } from "../db/schema";
import { getDeps, type Deps } from "../deps";
import { env } from "../env";
import { DomainError, type ErrorCode } from "../errors";
import { authenticateAndCount } from "./authenticate-and-count";
import { withCors } from "./cors";
import { toErrorResponse } from "./envelope";
import { claimKey, forgetKey, rememberResponse, requestHash } from "./idempotency";
import { readBodyText } from "./parse";
import { clientAddress, countRequest, rateHeaders, type RateState } from "./rate-limit";

export type RouteContext = { params: Promise<Record<string, string | string[]>> };

export type ApiOptions = {
  scope: Scope;
  /** Opt-in for the seven read routes a board access token may call; every other route refuses it. */
  boardToken?: boolean;
  /** Only an API token may call (access_tokens): a browser session is refused with api_token_required. */
  apiTokenOnly?: boolean;
  /** The token needs the webhooks permission (trigger routes). */
  webhooks?: boolean;
  /** Whether the path carries a workspace slug to resolve (default: when params has `slug`). */
  workspace?: boolean;
};

export type ApiContext<W extends Workspace | null = Workspace> = {
  req: Request;
  params: Record<string, string>;
  principal: Principal;
  workspace: W;
  deps: Deps;
};

type Handler<W extends Workspace | null> = (ctx: ApiContext<W>) => Promise<Response>;

function gate(principal: Principal, opts: ApiOptions) {
  if (principal.kind === "board" && !opts.boardToken) {
    throw new DomainError("board_scoped_token", "A board access token cannot be used on this endpoint");
  }
  if (opts.apiTokenOnly && principal.kind !== "api") {
    throw new DomainError(principal.kind === "board" ? "board_scoped_token" : "api_token_required", "Only an API token may call this endpoint");
  }
  if (opts.webhooks && !(principal.kind === "api" && principal.webhooks) && principal.kind !== "session") {
    throw new DomainError("webhook_permission_required", "This API token lacks the webhooks permission");
  }
  // Trigger paths name no workspace: a person must manage one at least (lib/webhooks checks which).
  if (opts.webhooks && principal.kind === "session" && !managesAnyWorkspace(principal)) throw insufficientRole("manage");
  if (!hasScope(principal, opts.scope)) {
    throw new DomainError("insufficient_scope", `This token lacks the ${opts.scope} scope`, { required_scope: opts.scope });
  }
}

function limitFor(kind: Principal["kind"] | null) {
  return kind === "board" ? env().EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN : env().EASEL_RATE_LIMIT_PER_MIN;
}

/**
 * The one wrapper of every /v1 handler, in this order so statuses are predictable: authenticate
 * (401) → rate limit (429) → board-token gate, API-token-only, webhooks permission, scope (403) →
 * workspace of the path (404) → Idempotency-Key replay → handler. Everything thrown is rendered
 * in the error envelope; every response carries the RateLimit-* headers. Limits are counted where
 * lib/http/rate-limit.ts says: across all nodes on PostgreSQL, in memory on the embedded database.
 */
export function withApi<W extends Workspace | null = Workspace>(opts: ApiOptions, handler: Handler<W>) {
  return async (req: Request, ctx: RouteContext): Promise<Response> => {
    let rate: RateState | null = null;
    let db: Deps["db"] | null = null; // for the client-address count after a failure
    let response: Response;
    try {
      const params = flattenParams(await ctx.params);
      const nulParam = Object.keys(params).find((k) => params[k].includes("\u0000"));
      const deps = await getDeps();
      db = deps.db;
      const authenticated = await authenticateAndCount(req, deps, limitFor);
      const principal = authenticated.principal;
      rate = authenticated.rate;
      if (rate.limited) throw new DomainError("rate_limited", "Too many requests", { retry_after: rate.resetSeconds });
      gate(principal, opts);
      // No stored token or slug holds U+0000 (Postgres text cannot): such a path names nothing.
      if (nulParam === "slug") throw new DomainError("workspace_not_found", "Workspace not found");
      const wantsWorkspace = opts.workspace ?? typeof params.slug === "string";
      const workspace = (wantsWorkspace ? await resolveWorkspace(deps, params.slug, principal, opts.scope) : null) as W;
      if (nulParam) throw new DomainError(NUL_PARAM_CODES[nulParam] ?? "route_not_found", "Not found");
      const run = () => handler({ req, params, principal, workspace, deps });
      response = await idempotent(req, deps, principal, run);
    } catch (err) {
      response = toErrorResponse(err, req);
    }
    // Unauthenticated (or failed before authenticating): counted against the client address, never refused.
    rate ??= await countRequest(db, `ip:${clientAddress(req)}`, limitFor(null));
    for (const [k, v] of Object.entries(rateHeaders(rate))) response.headers.set(k, v);
    return withCors(response);
  };
}

/** The path's workspace through the one authorization (lib/auth/authorize.ts): a person's role there decides the scope. */
function resolveWorkspace(deps: Deps, slug: string, principal: Principal, scope: Scope) {
  return authorizeWorkspace(deps.db, principal, slug, scope);
}

const NUL_PARAM_CODES: Record<string, ErrorCode> = { slug: "workspace_not_found", boardToken: "board_not_found", token: "asset_not_found", id: "trigger_not_found", delivery_id: "delivery_not_found" };

function flattenParams(raw: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) out[k] = Array.isArray(v) ? v.join("/") : v;
  return out;
}

/** POST with an Idempotency-Key: the same key and body within 24 h replays the first response. */
async function idempotent(req: Request, deps: Deps, principal: Principal, run: () => Promise<Response>): Promise<Response> {
  const key = req.headers.get("idempotency-key");
  if (req.method !== "POST" || !key || principal.kind === "board") return run();
  const body = await readBodyText(req.clone()); // capped like parseJson: the key's hash must not buffer an unbounded body
  const who = principalKey(principal);
  const replay = await claimKey(deps.db, who, key, requestHash(req.method, new URL(req.url).pathname, body), deps.clock());
  if (replay) {
    return Response.json(replay.body, { status: replay.status, headers: { "Idempotent-Replayed": "true" } });
  }
  let response: Response;
  try {
    response = await run();
  } catch (err) {
    response = toErrorResponse(err, req);
  }
  if (response.status >= 500) {
    await forgetKey(deps.db, who, key);
    return response;
  }
  const text = await response.clone().text();
  let stored: unknown = null;
  try {
    stored = text ? JSON.parse(text) : null;
  } catch {
    stored = null;
  }
  await rememberResponse(deps.db, who, key, response.status, stored);
  return response;
}
