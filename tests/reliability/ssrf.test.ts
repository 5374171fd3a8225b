import dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as triggerRoute from "../../app/v1/trigger/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { changedTables, stateSnapshotter } from "./helpers";
import { DNS, LITERALS } from "./ssrf-table";

/**
 * SSRF through POST /v1/trigger, beyond tests/webhooks/triggers.test.ts (which covers 127.0.0.1,
 * localhost, ::1, 0177.0.0.1, 10/8, 172.16/12, 192.168/16, 169.254.169.254, fd00::/8, 100.64/10):
 * every other spelling of loopback and the metadata address (decimal, hex, short, IPv4-mapped
 * IPv6, trailing dot, unspecified) and DNS names whose answers are private, through an injected
 * resolver (dns.promises.lookup, the one lib/net/url-guard.ts's systemResolver calls). Each is 422
 * invalid_hook_url and writes no trigger; a public answer through the same resolver is 201, so the
 * injection is live.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let hooks: string;
const looked: string[] = [];

beforeAll(async () => {
  vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "");
  resetEnvCache();
  // Whole-table comparisons need a database no other test file writes to at the same time.
  deps = await useTestDeps({ isolated: true });
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws);
  hooks = await newApiToken(deps.db, ws, { webhooks: true });
  vi.spyOn(dns.promises, "lookup").mockImplementation((async (hostname: string) => {
    looked.push(hostname);
    const answer = DNS[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer;
  }) as unknown as typeof dns.promises.lookup);
});
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  resetEnvCache();
});

const create = (hook_url: string) => call(triggerRoute.POST, { method: "POST", path: "/v1/trigger", token: hooks, json: { hook: "asset_added", hook_url, organization_slug: ws.slug, collection_token: board.token } });

describe("SSRF table through POST /v1/trigger", () => {
  it("refuses every private spelling and every name that resolves private (422 invalid_hook_url), writing nothing", async () => {
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const urls = [...LITERALS, ...Object.keys(DNS).filter((h) => !h.startsWith("public")).map((h) => `http://${h}/hook`)];
    const got: string[] = [];
    for (const url of urls) {
      const r = await create(url);
      got.push(`${url} ${r.status} ${r.body?.errors?.[0]?.extensions?.code} ${r.body?.errors?.[0]?.extensions?.reason ?? ""}`.trim());
    }
    console.log(`[ssrf] trigger route: ${urls.length} private hook URLs (${LITERALS.length} literals, ${urls.length - LITERALS.length} names via the injected resolver), ${got.filter((g) => / 422 invalid_hook_url/.test(g)).length} refused`);
    expect(got.filter((g) => !/ 422 invalid_hook_url /.test(g))).toEqual([]);
    expect(changedTables(before, await snapshot())).toEqual([]);
    // The names were looked up through the injected resolver (not refused before it for another reason).
    expect(looked).toEqual(expect.arrayContaining(Object.keys(DNS).filter((h) => !h.startsWith("public"))));
  });

  it("accepts a name whose every answer is public (the resolver injection is live)", async () => {
    const r = await create("http://public.rebind.test/hook");
    expect(r.status, r.text).toBe(201);
  });
});
