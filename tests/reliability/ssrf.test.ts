import dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as triggerRoute from "../../app/v1/trigger/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { changedTables, stateSnapshotter } from "./helpers";

/**
 * SSRF through POST /v1/trigger, beyond tests/webhooks/triggers.test.ts (which covers 127.0.0.1,
 * localhost, ::1, 0177.0.0.1, 10/8, 172.16/12, 192.168/16, 169.254.169.254, fd00::/8, 100.64/10):
 * every other spelling of loopback and the metadata address (decimal, hex, short, IPv4-mapped
 * IPv6, trailing dot, unspecified) and DNS names whose answers are private, through an injected
 * resolver (dns.promises.lookup, the one lib/net/url-guard.ts's systemResolver calls). Each is 422
 * invalid_hook_url and writes no trigger; a public answer through the same resolver is 201, so the
 * injection is live.
 */
const LITERALS = [
  "http://2130706433/hook",
  "http://0x7f000001/hook",
  "http://0x7f.1/hook",
  "http://017700000001/hook",
  "http://127.1/hook",
  "http://127.255.255.254/hook",
  "http://0.0.0.0/hook",
  "http://[::]/hook",
  "http://[::ffff:127.0.0.1]/hook",
  "http://[::ffff:7f00:1]/hook",
  "http://[0:0:0:0:0:ffff:a9fe:a9fe]/latest/meta-data/",
  "http://[::ffff:10.0.0.1]/hook",
  "http://[::ffff:192.168.1.1]/hook",
  "http://169.254.169.254./latest/meta-data/",
  "http://2852039166/latest/meta-data/",
  "http://0xa9fea9fe/latest/meta-data/",
  "http://10.255.255.255/hook",
  "http://172.31.255.255/hook",
  "http://192.168.0.1/hook",
  "http://[fe80::1]/hook",
  "https://127.0.0.1:443/hook",
];

const DNS: Record<string, { address: string; family: 4 | 6 }[]> = {
  "metadata.rebind.test": [{ address: "169.254.169.254", family: 4 }],
  "loopback.rebind.test": [{ address: "127.0.0.1", family: 4 }],
  "ten.rebind.test": [{ address: "10.1.2.3", family: 4 }],
  "one72.rebind.test": [{ address: "172.20.0.1", family: 4 }],
  "one92.rebind.test": [{ address: "192.168.10.10", family: 4 }],
  "v6loop.rebind.test": [{ address: "::1", family: 6 }],
  "mapped.rebind.test": [{ address: "::ffff:127.0.0.1", family: 6 }],
  "mixed.rebind.test": [
    { address: "93.184.215.14", family: 4 },
    { address: "192.168.1.1", family: 4 },
  ],
  "public.rebind.test": [{ address: "93.184.215.14", family: 4 }],
};

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
