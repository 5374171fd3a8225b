import crypto from "node:crypto";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import * as adminTokensRoute from "../../app/api/admin/workspaces/[slug]/tokens/route";
import * as mcpRoute from "../../app/mcp/route";
import * as accessTokensRoute from "../../app/v1/[slug]/access_tokens/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as completeRoute from "../../app/v1/[slug]/assets/upload_complete/route";
import * as prepareRoute from "../../app/v1/[slug]/assets/upload_prepare/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import { handlers as authHandlers } from "../../lib/auth/session";
import { createAdminUser } from "../../lib/auth/users";
import { type Workspace } from "../../lib/db/schema";
import { getDeps, setDeps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { withApi } from "../../lib/http/with-api";
import { signingKeyFromSecret } from "../../lib/jobs/executor";
import { captureLogs } from "../../lib/log/capture";
import { embeddedLayout } from "../../lib/objectstore";
import { createBucket } from "../../lib/objectstore/disk/objects";
import { getSecret, type SecretName } from "../../lib/secrets";
import { publishDirectRoutes, unpublishDirectRoutes } from "../../lib/server/direct-routes";
import { createEaselServer } from "../../lib/server/http-server.mjs";
import { answerWith } from "../../lib/server/node-bridge";
import { storageFor } from "../../lib/storage";
import { newBoard, newWorkspace, randomPng, uniq } from "../helpers/factories";
import { startReceiver, useWebhookJobs, waitFor } from "../webhooks/helpers";

/**
 * Contract §10: no token, secret or signed URL is ever logged. Every line the process logs, at
 * every level, is captured while the flows that handle secrets run for real through Easel's own
 * HTTP server (request logging, the embedded store's direct routes, the node bridge) in front of
 * the route handlers: sign-in with a password (right and wrong), an API token issued from the
 * session and used (and a wrong one), a board access token minted and used (and a forged one),
 * uploads through presigned S3 and signed GCS URLs (and a forged signature), a webhook with its
 * signing secret delivered to a local receiver that fails once, MCP calls, and forced 500s whose
 * errors carry a token and a signed URL. Then none of the raw values may appear in the output.
 */
type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
type RouteModule = Partial<Record<string, RouteHandler | string>>;

let secretUrl = "";
/** A bug in a /v1 handler whose error message holds the caller's credentials and a signed URL. */
const explodingRoute: RouteModule = {
  GET: withApi({ scope: "read" }, async ({ req }) => {
    throw new Error(`exploded handling ${req.headers.get("authorization")} for ${secretUrl}`);
  }),
};
/** A handler that fails outside the /v1 wrapper (the node bridge's 500). */
const rawFailure: RouteModule = {
  GET: async (req) => {
    throw new Error(`raw failure at ${req.url} with ${req.headers.get("authorization")}`);
  },
};

const ROUTES: [RegExp, RouteModule, string[]][] = [
  [/^\/api\/auth\/(.+)$/, authHandlers as unknown as RouteModule, ["nextauth"]],
  [/^\/api\/admin\/workspaces\/([^/]+)\/tokens$/, adminTokensRoute, ["slug"]],
  [/^\/mcp$/, mcpRoute, []],
  [/^\/v1\/trigger$/, triggerRoute, []],
  [/^\/v1\/([^/]+)\/explode$/, explodingRoute, ["slug"]],
  [/^\/raw-failure$/, rawFailure, []],
  [/^\/v1\/([^/]+)\/access_tokens$/, accessTokensRoute, ["slug"]],
  [/^\/v1\/([^/]+)\/assets\/upload_prepare$/, prepareRoute, ["slug"]],
  [/^\/v1\/([^/]+)\/assets\/upload_complete$/, completeRoute, ["slug"]],
  [/^\/v1\/([^/]+)\/assets\/([^/]+)$/, assetRoute, ["slug", "token"]],
  [/^\/v1\/([^/]+)\/boards$/, boardsRoute, ["slug"]],
  [/^\/v1\/([^/]+)\/boards\/([^/]+)$/, boardRoute, ["slug", "boardToken"]],
];

/** Stands in for Next.js behind Easel's server: the route files' handlers, called as Next.js calls them. */
async function appRouter(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  for (const [pattern, module, names] of ROUTES) {
    const match = pattern.exec(path);
    const handler = match && (module[req.method ?? "GET"] as RouteHandler | string | undefined);
    if (!match || typeof handler !== "function") continue;
    const params = Object.fromEntries(names.map((n, i) => [n, n === "nextauth" ? match[i + 1].split("/") : match[i + 1]]));
    // Next.js hands route handlers a request whose body it has read itself.
    const buffered = async (incoming: Request) => {
      const body = incoming.body ? Buffer.from(await incoming.arrayBuffer()) : undefined;
      return new Request(incoming.url, { method: incoming.method, headers: incoming.headers, body });
    };
    return answerWith(async (incoming) => handler(await buffered(incoming), { params: Promise.resolve(params) }), req, res);
  }
  res.writeHead(404).end();
}

const PASSWORD = `pw-${crypto.randomBytes(12).toString("hex")}`;
const WRONG_PASSWORD = `wrong-${crypto.randomBytes(12).toString("hex")}`;
/** Every value that must never reach the log. */
const secrets = new Map<string, string>();
const keep = (what: string, value: string | null | undefined) => {
  expect(value, what).toBeTruthy();
  secrets.set(what, value!);
};

let server: http.Server;
let origin: string;
let logs: ReturnType<typeof captureLogs>;
let deps: Awaited<ReturnType<typeof useWebhookJobs>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  logs = captureLogs("trace");
  deps = await useWebhookJobs({ EASEL_WEBHOOK_RETRY_SCHEDULE: "0,1" });
  const { db, clock } = deps;
  // The embedded store's real drivers (presigned URLs pointing at this server), the webhook job sender.
  setDeps({ ...(await getDeps()), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock }) });
  await createBucket(embeddedLayout(), "easel", clock());
  server = createEaselServer(appRouter);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  vi.stubEnv("EASEL_PUBLIC_URL", origin);
  resetEnvCache();
  publishDirectRoutes();
  receiver = await startReceiver();
  for (const name of ["board_token_key", "signed_storage_id_key", "object_store_secret_key", "jobs_signing_key", "auth_secret", "media_url_key"] as SecretName[]) {
    keep(`stored secret ${name}`, await getSecret(db, name));
  }
  keep("jobs signing key", signingKeyFromSecret(secrets.get("stored secret jobs_signing_key")!));
}, 120_000);

afterAll(async () => {
  logs?.restore();
  unpublishDirectRoutes();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  vi.unstubAllEnvs();
  resetEnvCache();
});

const send = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  if (typeof init.body === "string" && !headers.has("content-type")) headers.set("content-type", "application/json");
  return fetch(`${origin}${path}`, { ...init, headers, redirect: "manual" });
};

/** Signs in through next-auth's credentials callback; answers the session cookie, or null. */
async function signIn(email: string, password: string): Promise<string | null> {
  const csrf = await send("/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  keep(`csrf token ${secrets.size}`, csrfToken);
  const csrfCookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await send("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${origin}/boards` }).toString(),
  });
  expect(res.status).toBe(302);
  const session = res.headers
    .getSetCookie()
    .find((c) => c.startsWith("authjs.session-token="))
    ?.split(";")[0];
  return session ?? null;
}

async function issueToken(session: string, ws: Workspace): Promise<string> {
  const res = await send(`/api/admin/workspaces/${ws.slug}/tokens`, {
    method: "POST",
    headers: { cookie: session, origin },
    body: JSON.stringify({ token: { name: "logs", scopes: ["read", "write"], webhooks: true } }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { token: string } }).data.token;
}

/** upload_prepare → the bytes to the signed URL on the embedded store → upload_complete on the board. */
async function upload(ws: Workspace, token: string, board: string) {
  const bytes = await randomPng(16, 16);
  const prep = await send(`/v1/${ws.slug}/assets/upload_prepare`, { method: "POST", token, body: JSON.stringify({ asset: { title: "Logged", media_type: "image/png", size: bytes.length } }) });
  expect(prep.status, await prep.clone().text()).toBe(200);
  const p = ((await prep.json()) as { data: { upload_url: string; signed_storage_id: string } }).data;
  keep(`signed storage id ${ws.slug}`, p.signed_storage_id);
  const url = new URL(p.upload_url);
  for (const [name, value] of url.searchParams) if (/signature|credential|security-token/i.test(name)) keep(`${name} ${ws.slug}`, value);
  secretUrl = p.upload_url;
  if (ws.storageKind === "gcs") {
    const start = await fetch(p.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } });
    expect(start.status).toBe(201);
    const session = new URL(start.headers.get("location")!);
    keep(`gcs session ${ws.slug}`, session.searchParams.get("upload_id"));
    expect((await fetch(session, { method: "PUT", body: new Uint8Array(bytes) })).status).toBe(200);
  } else {
    // A forged signature first (403 from the store), then the real one.
    const forged = new URL(p.upload_url);
    forged.searchParams.set("X-Amz-Signature", "0".repeat(64));
    expect((await fetch(forged, { method: "PUT", body: new Uint8Array(bytes) })).status).toBe(403);
    expect((await fetch(p.upload_url, { method: "PUT", body: new Uint8Array(bytes) })).status).toBe(200);
  }
  const done = await send(`/v1/${ws.slug}/assets/upload_complete`, { method: "POST", token, body: JSON.stringify({ asset: { signed_storage_id: p.signed_storage_id, collection_token: board } }) });
  expect(done.status, await done.clone().text()).toBe(200);
  return ((await done.json()) as { data: { token: string } }).data.token;
}

it("no token, password, secret, signature or signed URL reaches the log, whatever the flow and whatever fails", { timeout: 120_000 }, async () => {
  const { db } = deps;
  const s3ws = await newWorkspace(db, { storage: "s3" });
  const gcsWs = await newWorkspace(db, { storage: "gcs" });
  const s3Board = await newBoard(db, s3ws, { title: "Logged board" });
  const gcsBoard = await newBoard(db, gcsWs, { title: "Logged GCS board" });
  const email = `${uniq("logs")}@easel.test`;
  await createAdminUser(db, { email, password: PASSWORD, now: new Date() });
  keep("password", PASSWORD);
  keep("wrong password", WRONG_PASSWORD);

  // Sign-in: wrong password, then the right one; the session issues API tokens.
  expect(await signIn(email, WRONG_PASSWORD)).toBeNull();
  const session = await signIn(email, PASSWORD);
  keep("session cookie", session?.split("=").slice(1).join("="));
  const token = await issueToken(session!, s3ws);
  const gcsToken = await issueToken(session!, gcsWs);
  keep("api token", token);
  keep("gcs api token", gcsToken);

  // The API token used, and a wrong one (401).
  expect((await send(`/v1/${s3ws.slug}/boards`, { token })).status).toBe(200);
  const wrongToken = `easel_${crypto.randomBytes(24).toString("base64url")}`;
  keep("wrong api token", wrongToken);
  expect((await send(`/v1/${s3ws.slug}/boards`, { token: wrongToken })).status).toBe(401);
  const shortWrong = crypto.randomBytes(9).toString("hex");
  keep("wrong bearer value", shortWrong);
  expect((await send(`/v1/${s3ws.slug}/boards`, { token: shortWrong })).status).toBe(401);

  // A board access token minted and used; a forged one refused.
  const minted = await send(`/v1/${s3ws.slug}/access_tokens`, { method: "POST", token, body: JSON.stringify({ board_token: s3Board.token, expires_in: 600 }) });
  expect(minted.status).toBe(200);
  const boardJwt = ((await minted.json()) as { data: { access_token: string } }).data.access_token;
  keep("board access token", boardJwt);
  expect((await send(`/v1/${s3ws.slug}/boards/${s3Board.token}`, { token: boardJwt })).status).toBe(200);
  const [head, body] = boardJwt.split(".");
  const forgedJwt = `${head}.${body}.${crypto.randomBytes(32).toString("base64url")}`;
  keep("forged board access token", forgedJwt);
  expect((await send(`/v1/${s3ws.slug}/boards/${s3Board.token}`, { token: forgedJwt })).status).toBe(401);

  // A webhook whose receiver fails the first delivery, then takes the retry.
  receiver.script("/hook", [500, 200]);
  const trigger = await send("/v1/trigger", {
    method: "POST",
    token,
    body: JSON.stringify({ hook: "asset_updated", hook_url: receiver.url("/hook"), organization_slug: s3ws.slug, collection_token: s3Board.token }),
  });
  expect(trigger.status, await trigger.clone().text()).toBe(201);
  keep("webhook signing secret", ((await trigger.json()) as { secret: string }).secret);

  // Uploads through presigned S3 and signed GCS URLs on the embedded store.
  const assetToken = await upload(s3ws, token, s3Board.token);
  await upload(gcsWs, gcsToken, gcsBoard.token);

  // The write that fires the webhook; both attempts arrive.
  const patched = await send(`/v1/${s3ws.slug}/assets/${assetToken}`, { method: "PATCH", token, body: JSON.stringify({ asset: { title: "Logged, renamed" } }) });
  expect(patched.status).toBe(200);
  const deliveries = await waitFor(() => receiver.at("/hook").length >= 2 && receiver.at("/hook"), 30_000, "two webhook attempts");
  for (const [i, d] of deliveries.entries()) keep(`webhook signature ${i}`, d.headers["webhook-signature"]?.split(" ")[0].slice(3));

  // MCP: a tool call with the API token; a connection with a wrong one is refused.
  const mcp = new Client({ name: "logs-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const got = await mcp.callTool({ name: "get_asset", arguments: { organization: s3ws.slug, asset_token: assetToken } });
  expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
  await mcp.close();
  const refused = new Client({ name: "logs-test", version: "1.0.0" });
  await expect(refused.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${wrongToken}` } } }))).rejects.toThrow();

  // Forced 500s whose errors carry the caller's token and a signed URL.
  const exploded = await send(`/v1/${s3ws.slug}/explode`, { token });
  expect(exploded.status).toBe(500);
  const requestId = exploded.headers.get("x-request-id");
  expect(requestId).toBeTruthy();
  const raw = await send(`/raw-failure?X-Amz-Signature=${secrets.get(`X-Amz-Signature ${s3ws.slug}`)}&token=${token}`, { token });
  expect(raw.status).toBe(500);

  // The log really was written: the 500 is there with its request id, the errors with their messages (scrubbed).
  const lines = logs.lines();
  expect(lines.length).toBeGreaterThan(10);
  const explodedLine = lines.find((l) => l.msg === "unhandled error; answered 500 internal" && l.request_id === requestId);
  expect(explodedLine, "the 500's line").toBeDefined();
  expect((explodedLine!.err as { message: string }).message).toMatch(/^exploded handling Bearer \[redacted\] for http:\/\/127\.0\.0\.1:\d+\/storage\/gcs\/easel\/.+X-Goog-Signature=\[redacted\]$/);
  expect(lines.some((l) => l.msg.startsWith("request failed") && (l.err as { message?: string })?.message?.startsWith("raw failure at"))).toBe(true);
  // Every flow went through the server and was logged as a request (contract §10: one line per request, with its route).
  const routes = new Set(lines.filter((l) => l.msg === "request").map((l) => l.route));
  for (const route of ["/api/auth/[...nextauth]", "/api/admin/workspaces/[slug]/tokens", "/mcp", "/v1/trigger", "/v1/[slug]/access_tokens", "/storage/s3/[[...path]]", "/storage/gcs/[[...path]]"]) {
    expect(routes, route).toContain(route);
  }

  // Nothing secret anywhere in it, raw or URL-encoded.
  const text = logs.text();
  expect(secrets.size).toBeGreaterThan(25);
  for (const [what, value] of secrets) {
    expect(text.includes(value), `${what} is in the log`).toBe(false);
    expect(text.includes(encodeURIComponent(value)), `${what} (URL-encoded) is in the log`).toBe(false);
  }
});
