import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import type { Asset, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { insertAsset, newApiToken, newWorkspace } from "../helpers/factories";
import { expectOtherTenantUnharmed, measureOtherTenant, newOtherTenant, startEaselServer, type OtherTenant } from "../helpers/other-tenant";
import { useVideoJobs } from "../video/helpers";

/**
 * Contract §13, "Metadata is bounded", as an attack: workspace A sends PATCHes carrying 45,000
 * custom fields (about 800 KB of JSON, under the 1 MiB body limit), round after round, while
 * workspace B reads. Before the bound, each such PATCH was accepted and held the event loop for
 * 2-3 s (B's board list went from ≤ 112 ms to 1.9-3.1 s). Now each is refused with 422
 * validation_failed on `fields` before any walk over the fields, A's asset is unchanged, and B is
 * measured the three ways of §13 "Tested as a promise" (tests/helpers/other-tenant.ts): reads over
 * Easel's HTTP server p99 < 250 ms, a new PNG's thumbnails < 30 s, /healthz 200 throughout.
 */

const ROUNDS = 15;
const FIELD_COUNT = 45_000;
/** Between the attacker's PATCHes, as between requests over a network; also B's read interval. */
const PROBE_INTERVAL_MS = 100;

let deps: Awaited<ReturnType<typeof useVideoJobs>>;
let server: Awaited<ReturnType<typeof startEaselServer>>;
let attacker: Workspace;
let attackerToken: string;
let target: Asset;
let victim: OtherTenant;

beforeAll(async () => {
  // The probe sends hundreds of reads a minute with one token.
  vi.stubEnv("EASEL_RATE_LIMIT_PER_MIN", "1000000");
  resetEnvCache();
  deps = await useVideoJobs();
  server = await startEaselServer();
  attacker = await newWorkspace(deps.db);
  attackerToken = await newApiToken(deps.db, attacker, { scopes: ["read", "write"] });
  target = await insertAsset(deps.db, attacker, { title: "Target", tags: ["original"], fields: { sku: "A-1" } });
  victim = await newOtherTenant(deps.db);
});

afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
  resetEnvCache();
});

const readTarget = () => call(assetRoute.GET, { path: `/v1/${attacker.slug}/assets/${target.token}`, token: attackerToken, params: { slug: attacker.slug, token: target.token } });

/** The attacker's body, serialised once: building it is the attacker's cost, not the server's. */
function bombBody(): Uint8Array<ArrayBuffer> {
  const fields = Object.fromEntries(Array.from({ length: FIELD_COUNT }, (_, i) => [`k${i}`, `v${i}`]));
  return new TextEncoder().encode(JSON.stringify({ asset: { fields } }));
}

/** Jobs sent for the attacker's workspace (B's upload sends its own). */
const attackerEvents = () => deps.jobs.sent.filter((e) => String((e.data as { workspaceId?: unknown }).workspaceId) === String(attacker.id)).length;

type Refusal = { status: number; code?: string; field?: string };
const REFUSED: Refusal = { status: 422, code: "validation_failed", field: "fields" };

/**
 * One PATCH of the bomb, built here rather than through `call`: the body is encoded once for every
 * round, since encoding 800 KB is the attacker's work, and in-process it would run on the loop
 * being measured.
 */
async function sendBomb(body: Uint8Array<ArrayBuffer>): Promise<Refusal> {
  const req = new Request(`http://easel.test/v1/${attacker.slug}/assets/${target.token}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${attackerToken}`, "content-type": "application/json" },
    body,
  });
  const res = await assetRoute.PATCH(req, { params: Promise.resolve({ slug: attacker.slug, token: target.token }) });
  const answer = (await res.json()) as { errors?: { extensions?: { code?: string; field?: string } }[] };
  const extensions = answer.errors?.[0]?.extensions ?? {};
  return { status: res.status, code: extensions.code, field: extensions.field };
}

describe("45,000 custom fields in one PATCH, repeated", () => {
  it("every PATCH answers 422 on fields, the asset is unchanged, and another workspace keeps its reads, thumbnails and /healthz", async () => {
    const body = bombBody();
    expect(body.length).toBeGreaterThan(750_000);
    expect(body.length).toBeLessThan(1024 * 1024);
    const before = await readTarget();
    expect(before.status).toBe(200);
    // Warm-up: the first call of a route compiles code and prepares statements, which is not what
    // a request costs. It is checked like the measured ones.
    expect(await sendBomb(body)).toEqual(REFUSED);
    const eventsBefore = attackerEvents();

    const probe = await measureOtherTenant({ port: server.port, db: deps.db, storage: deps.store.s3, tenant: victim, everyMs: PROBE_INTERVAL_MS });
    probe.upload();
    const answers: Refusal[] = [];
    const patchMs: number[] = [];
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const t0 = performance.now();
        answers.push(await sendBomb(body));
        patchMs.push(performance.now() - t0);
        await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
      }
    } finally {
      loop.disable();
    }
    const figures = await probe.stop();

    console.log(`[fields-bomb] ${ROUNDS} PATCHes of ${FIELD_COUNT} fields (${body.length} bytes), each refused in ${patchMs.map((ms) => ms.toFixed(0)).join(", ")} ms; max event-loop delay ${(loop.max / 1e6).toFixed(1)} ms`);
    expect(answers).toEqual(Array.from({ length: ROUNDS }, () => REFUSED));
    expect((await readTarget()).body).toEqual(before.body);
    expect(attackerEvents()).toBe(eventsBefore);
    expectOtherTenantUnharmed(figures, "45,000 fields");
  }, 300_000);
});
