import dns from "node:dns";
import type http from "node:http";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { mcpRoute } from "../../lib/mcp/http";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { callTool, connect } from "../mcp/helpers/client";
import { selfSignedCert, startServer, type TestServer } from "../mcp/helpers/servers";
import { changedTables, stateSnapshotter } from "./helpers";
import { BASIC, DNS, LITERALS } from "./ssrf-table";

/**
 * SSRF through the MCP endpoint: create_asset_version is the one tool that fetches a URL an
 * assistant chose. Without EASEL_WEBHOOK_ALLOW_PRIVATE every address of the shared table is
 * refused (validation_failed, field url, reason private_address), whether it is the URL itself or
 * where an allowed URL redirects, and nothing is written.
 *
 * The table's URLs are http://; the tool takes https:// only (an http URL is refused for its
 * scheme before its address is looked at), so each is sent as https:// to reach the address rule.
 * Redirects need a first hop that is allowed: a local HTTPS server whose one exact address the
 * route is told to trust (`trustedAddresses`, the option safeFetch has for one known internal
 * service); every hop after it is checked as usual.
 */
const asHttps = (u: string) => u.replace(/^http:/, "https:");
const privateNames = Object.keys(DNS).filter((h) => !h.startsWith("public"));
// 127.0.0.1 itself (any spelling, or a name answering with it) is the trusted first hop of the
// redirect tests, so it cannot be a redirect target there.
const isTrustedHop = (u: string) => {
  const host = new URL(u).hostname;
  return ["127.0.0.1", "localhost"].includes(host) || (DNS[host] ?? []).some((a) => a.address === "127.0.0.1");
};
const TARGETS = [...BASIC, ...LITERALS].map(asHttps);

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let asset: { token: string };
let files: TestServer;
let plain: Client;
let trusting: Client;
const requests: string[] = [];
const looked: string[] = [];

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = req.url ?? "";
  requests.push(path);
  // /to?u=<url>: a redirect to that URL.
  const to = new URL(path, "https://files.test").searchParams.get("u");
  if (to) return void res.writeHead(302, { location: to }).end();
  res.writeHead(404).end();
}

beforeAll(async () => {
  vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "");
  resetEnvCache();
  // Whole-table comparisons need a database no other test file writes to at the same time.
  deps = await useTestDeps({ isolated: true });
  ws = await newWorkspace(deps.db, { plan: "team" });
  board = await newBoard(deps.db, ws);
  const token = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
  asset = (await uploadAsset(ws, token, deps.store.s3, await randomPng(), { collection_token: board.token })).asset;
  const pem = selfSignedCert({ ips: ["127.0.0.1"] });
  files = await startServer(handler, pem);
  // Direct URLs go through the route as production builds it (plus the test CA, which changes no address rule).
  plain = await connect(token, mcpRoute({ download: { ca: pem.cert, timeoutMs: 5_000 } }));
  trusting = await connect(token, mcpRoute({ download: { ca: pem.cert, trustedAddresses: ["127.0.0.1"], timeoutMs: 5_000 } }));
  vi.spyOn(dns.promises, "lookup").mockImplementation((async (hostname: string) => {
    looked.push(hostname);
    const answer = DNS[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer;
  }) as unknown as typeof dns.promises.lookup);
});
afterAll(async () => {
  await plain?.close();
  await trusting?.close();
  await files?.close();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  resetEnvCache();
});

async function ingest(url: string, client = plain): Promise<string> {
  const r = await callTool(client, "create_asset_version", { organization: ws.slug, asset_token: asset.token, url });
  const error = (r.structuredContent as { error?: { code: string; reason?: string } } | undefined)?.error;
  return r.isError ? `${error?.code} ${error?.reason ?? ""}`.trim() : "written";
}

describe("SSRF table through the MCP create_asset_version tool", () => {
  it("refuses every private address, name and redirect to one (validation_failed / private_address) and writes nothing", async () => {
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const direct = [...TARGETS, ...privateNames.map((h) => `https://${h}/file.png`)];
    const redirected = direct.filter((u) => !isTrustedHop(u)).map((u) => `${files.origin}/to?u=${encodeURIComponent(u)}`);
    const got: string[] = [];
    for (const url of direct) got.push(`${url} → ${await ingest(url)}`);
    const directRequests = requests.length;
    for (const url of redirected) got.push(`${url} → ${await ingest(url, trusting)}`);
    const refused = got.filter((g) => g.endsWith("→ validation_failed private_address"));
    console.log(`[ssrf] MCP create_asset_version: ${direct.length} private URLs (${TARGETS.length} literals, ${privateNames.length} names via the injected resolver) and ${redirected.length} redirects to them from an allowed server; ${refused.length} of ${got.length} refused as private_address`);
    expect(got.filter((g) => !g.endsWith("→ validation_failed private_address"))).toEqual([]);
    // Direct URLs never reached a server; each redirect reached the allowed first hop once, and only it.
    expect(directRequests).toBe(0);
    expect(requests).toHaveLength(redirected.length);
    expect(looked).toEqual(expect.arrayContaining(privateNames));
    expect(changedTables(before, await snapshot())).toEqual([]);
  });

  it("controls: the allowed first hop itself is fetched (404 here), and a name with only public answers passes the address rule", async () => {
    requests.length = 0;
    expect(await ingest(`${files.origin}/nothing-here`, trusting)).toBe("validation_failed http_status");
    expect(requests).toEqual(["/nothing-here"]);
    // public.rebind.test resolves to a public address: the guard lets it through to the
    // connection (which fails or times out here, offline), so the refusal is not private_address.
    const pub = await ingest("https://public.rebind.test/file.png");
    expect(pub).not.toMatch(/private_address/);
    expect(pub).toMatch(/^validation_failed (network|timeout)$/);
  }, 20_000);
});
