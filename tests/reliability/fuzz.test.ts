import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { OPERATIONS, type Operation } from "../../lib/openapi/operations";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { checkResponse } from "../openapi/recorder";
import { v1Routes, type RouteFile } from "../openapi/routes";
import { changedTables, envelopeProblem, stateSnapshotter } from "./helpers";

/**
 * Fuzzes every /v1 operation (from the OpenAPI operation registry) and the /v1 catch-alls
 * in-process through the route handlers: malformed JSON, wrong types, missing and extra fields,
 * huge strings and numbers, unicode, negative and fractional numbers, long paths and query
 * strings, duplicated headers, other methods. For every request: no 5xx, every error in the
 * contract's envelope and documented for its operation (tests/openapi/recorder.ts), and a
 * rejected request (status >= 400) changes no table (tests/reliability/helpers.ts).
 *
 * EASEL_FUZZ_RUNS (default 10000) and EASEL_FUZZ_SEED reproduce a run; the figures are printed.
 */
const RUNS = Number(process.env.EASEL_FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);

type Fix = { ws: Workspace; board: Board; assetToken: string; triggerId: string; token: string; boardToken: string };
type Case = { op: string; route: RouteFile; method: string; path: string; params: Record<string, string>; headers: [string, string][]; body?: string };

// ---- hostile values

const huge = fc.constantFrom("a".repeat(70_000), "é".repeat(20_000), "💥".repeat(5_000), "9".repeat(400));
const nasty = fc.constantFrom<unknown>(
  null, true, false, 0, -1, -0.5, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 2 ** 31, -(2 ** 31) - 1, 2 ** 63,
  "", " ", "null", "0", "-1", "1.5", "1e309", "NaN", "Infinity", "\u0000", "\u202e\u200b", "\ud83d", "../../etc/passwd", "%00", "' or 1=1 --", "<script>alert(1)</script>",
  "image/png", "asset_added", "http://127.0.0.1:9/hook", "file:///etc/passwd", "true", [], {}, [[[]]], { $ne: null }, { __proto__: { polluted: 1 } },
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: huge },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

// ---- plausible values, from the request schemas (as JSON Schema), so fuzzing reaches past the first field

type Js = { type?: string | string[]; properties?: Record<string, Js>; required?: string[]; enum?: unknown[]; items?: Js; anyOf?: Js[]; oneOf?: Js[]; maxLength?: number; minimum?: number; maximum?: number };

function jsonSchemaOf(schema: z.ZodType | undefined): Js | null {
  if (!schema) return null;
  try {
    return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Js;
  } catch {
    return null;
  }
}

function plausible(name: string, js: Js, fix: Fix): fc.Arbitrary<unknown> {
  const known: Record<string, unknown[]> = {
    media_type: ["image/png", "video/mp4", "text/plain"],
    md5: ["0".repeat(32), "A".repeat(32)],
    hook: ["asset_added", "asset_updated", "asset_deleted"],
    hook_url: ["http://127.0.0.1:9/hook", "http://10.0.0.1/", "ftp://x", "http://[::1]/"],
    organization_slug: [fix.ws.slug],
    collection_token: [fix.board.token],
    parent_token: [fix.board.token, null],
    board_token: [fix.board.token],
    signed_storage_id: ["x", "eyJhIjoxfQ.abc"],
  };
  if (known[name]) return fc.constantFrom(...known[name]);
  if (js.enum) return fc.constantFrom(...js.enum);
  const alts = js.anyOf ?? js.oneOf;
  if (alts?.length) return fc.oneof(...alts.map((a) => plausible(name, a, fix)));
  const type = Array.isArray(js.type) ? js.type[0] : js.type;
  switch (type) {
    case "string":
      return fc.string({ maxLength: Math.min(js.maxLength ?? 30, 30) });
    case "integer":
      return fc.integer({ min: -3, max: 200 });
    case "number":
      return fc.double({ min: -10, max: 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(js.items ? plausible(name, js.items, fix) : anyValue, { maxLength: 4 });
    case "object":
      return objectOf(js, fix);
    default:
      return anyValue;
  }
}

/** An object of the schema's shape where each field may be plausible, hostile, or missing, plus extra fields. */
function objectOf(js: Js, fix: Fix): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(js.properties ?? {});
  const fields = props.map(([k, v]) => fc.option(fc.oneof({ weight: 3, arbitrary: plausible(k, v, fix) }, { weight: 2, arbitrary: anyValue }), { nil: undefined, freq: 4 }).map((val) => [k, val] as const));
  const extra = fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "constructor", "id", "workspace_id", "token")), anyValue), { maxLength: 2 });
  return fc.tuple(fc.tuple(...fields), extra).map(([kv, ex]) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of kv) if (v !== undefined) o[k] = v;
    for (const [k, v] of ex) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  });
}

function bodyArb(op: Operation, fix: Fix): fc.Arbitrary<string | undefined> {
  const js = jsonSchemaOf(op.body);
  const shaped = js ? objectOf(js, fix).map((o) => JSON.stringify(o)) : fc.constant("{}");
  const malformed = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.constantFrom("{", "[1,2", "{\"a\":}", "nul", "\u0000", "{\"asset\":{\"size\":1e999}}", "{\"board\":{\"title\":\"\\ud800\"}}", "{\"a\":1,\"a\":2}", "[]", "null", "42", "\"str\"", "true", "\ufeff{}", " ".repeat(5000)),
    shaped.map((s) => s.slice(0, Math.max(1, Math.floor(s.length / 2)))),
  );
  const deep = fc.integer({ min: 100, max: 5000 }).map((n) => "[".repeat(n) + "]".repeat(n));
  return fc.oneof(
    { weight: 6, arbitrary: shaped },
    { weight: 3, arbitrary: malformed },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function queryArb(op: Operation): fc.Arbitrary<string> {
  const keys = Object.keys(op.query?.shape ?? {});
  const key = keys.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }) : fc.string({ maxLength: 10 });
  const val = fc.oneof(
    fc.constantFrom("1", "0", "-1", "2.5", "1e3", "100", "101", "99999999999999999999", "true", "false", "", "abc", "%", "%zz", "\u0000", "💥"),
    fc.string({ maxLength: 20 }),
    fc.string({ unit: "grapheme", maxLength: 20 }),
    fc.integer({ min: 1, max: 20_000 }).map((n) => "q".repeat(n)),
  );
  return fc.array(fc.tuple(key, val), { maxLength: 5 }).map((pairs) => {
    const p = new URLSearchParams();
    for (const [k, v] of pairs) p.append(k, v);
    return p.toString();
  });
}

function paramArb(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 10_000 }).map((n) => "a".repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom("..", ".", "%00", "%2F", " ", "0", "-1", "1.5", "9".repeat(30), valid.toUpperCase(), valid + "x", valid.slice(0, -1), "\ud800", "\u0000", `${valid}\u0000`) },
  ).filter((s) => s !== "" && s !== "." && s !== ".."); // empty and dot segments are resolved by the URL parser before routing
}

function headersArb(op: Operation, fix: Fix): fc.Arbitrary<[string, string][]> {
  const auth = fc.oneof(
    { weight: 12, arbitrary: fc.constant([["authorization", `Bearer ${fix.token}`]] as [string, string][]) },
    { weight: 1, arbitrary: fc.constant([["authorization", `Bearer ${fix.boardToken}`]] as [string, string][]) },
    { weight: 1, arbitrary: fc.constant([["authorization", `Bearer ${fix.token}`], ["authorization", `Bearer ${fix.token}`]] as [string, string][]) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s)).map((s) => [["authorization", s]] as [string, string][]) },
    { weight: 1, arbitrary: fc.constant([] as [string, string][]) },
  );
  const ascii = fc.string({ maxLength: 30 }).filter((s) => /^[\x21-\x7e]*$/.test(s));
  const extra = fc.array(
    fc.oneof(
      fc.constantFrom<[string, string]>(["content-type", "text/plain"], ["content-type", "application/json; charset=utf-16"], ["content-type", "multipart/form-data; boundary=x"], ["if-match", "\"1\""], ["if-match", "0"], ["if-match", "W/\"99999999999999999999\""], ["if-match", "*"]),
      ascii.map((v) => ["if-match", v] as [string, string]),
      ascii.map((v) => ["idempotency-key", v || "k"] as [string, string]),
      ascii.map((v) => ["x-forwarded-for", v] as [string, string]),
    ),
    { maxLength: 3 },
  );
  return fc.tuple(auth, extra).map(([a, e]) => [...a, ...e]);
}

function caseArb(op: Operation, route: RouteFile, fix: Fix): fc.Arbitrary<Case> {
  const valid: Record<string, string> = { slug: fix.ws.slug, boardToken: fix.board.token, token: fix.assetToken, id: fix.triggerId, delivery_id: "1" };
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const params = fc.tuple(...names.map((n) => paramArb(valid[n] ?? "x"))).map((vals) => Object.fromEntries(names.map((n, i) => [n, vals[i]])));
  const method = fc.oneof({ weight: 9, arbitrary: fc.constant(op.method.toUpperCase()) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE") });
  return fc.record({ params, query: queryArb(op), body: bodyArb(op, fix), headers: headersArb(op, fix), method }).map(({ params: p, query, body, headers, method: m }) => {
    const concrete = op.path.replace(/\{(\w+)\}/g, (_, n: string) => safeEncode(p[n]));
    return { op: op.operationId, route, method: m, path: concrete + (query ? `?${query}` : ""), params: p, headers, body: m === "GET" || m === "DELETE" ? undefined : body };
  });
}

/** Catch-alls: unknown paths under /v1/:slug, under a board and under an asset, with any method. */
function catchAllArb(routes: RouteFile[], fix: Fix): fc.Arbitrary<Case> {
  const rests = routes.filter((r) => r.template === null);
  // The first segment never names a real route (Next.js would route it there, not to the catch-all);
  // no dot segments (the URL parser resolves them before routing).
  const seg = fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom("assets", "boards", "versions", "a".repeat(3000))).filter((s) => s !== "." && s !== "..");
  return fc.record({ route: fc.constantFrom(...rests), rest: fc.array(seg, { minLength: 1, maxLength: 6 }), method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"), headers: headersArb(OPERATIONS[0], fix) }).map(({ route, rest, method, headers }) => {
    const base = route.file.includes("boards/[boardToken]") ? `/v1/${fix.ws.slug}/boards/${fix.board.token}` : route.file.includes("assets/[token]") ? `/v1/${fix.ws.slug}/assets/${fix.assetToken}` : `/v1/${fix.ws.slug}`;
    const params: Record<string, string> = { slug: fix.ws.slug, boardToken: fix.board.token, token: fix.assetToken };
    return { op: `catch-all ${route.file}`, route, method, path: `${base}/zz-${rest.map(safeEncode).join("/")}`, params: { ...params, rest: `zz-${rest.join("/")}` }, headers };
  });
}

function safeEncode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return "x"; // a lone surrogate: the URL carries a stand-in, the params keep the raw value
  }
}

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let fix: Fix;
let routes: RouteFile[];

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "100000000";
  process.env.EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN = "100000000";
  delete process.env.EASEL_WEBHOOK_ALLOW_PRIVATE;
  resetEnvCache();
  // Whole-table comparisons need a database no other test file writes to at the same time.
  deps = await useTestDeps({ isolated: true });
  const ws = await newWorkspace(deps.db, { plan: "team" });
  const board = await newBoard(deps.db, ws);
  const asset = await insertAsset(deps.db, ws, { boardIds: [board.id] });
  const token = await newApiToken(deps.db, ws, { scopes: ["read", "write"], webhooks: true });
  const { createTrigger } = await import("../../lib/webhooks");
  const principal = { kind: "api" as const, tokenId: 0, scopes: ["read" as const, "write" as const], webhooks: true, prefix: "easel_f", workspace: ws };
  process.env.EASEL_WEBHOOK_ALLOW_PRIVATE = "1";
  resetEnvCache();
  const trig = await createTrigger(deps, principal, { hook: "asset_added", hookUrl: "http://127.0.0.1:9/hook", organizationSlug: ws.slug, collectionToken: board.token });
  delete process.env.EASEL_WEBHOOK_ALLOW_PRIVATE;
  resetEnvCache();
  fix = { ws, board, assetToken: asset.token, triggerId: trig.id, token, boardToken: await newBoardToken(deps.db, ws, board.token, { expiresIn: 86_400 }) };
  routes = await v1Routes();
  // Instance secrets are generated on first use (a settings row): make them exist before the state checks.
  const { getSecret } = await import("../../lib/secrets");
  for (const name of ["signed_storage_id_key", "media_url_key", "board_token_key"] as const) await getSecret(deps.db, name);
});

describe("fuzzing every /v1 route", () => {
  it(`answers ${RUNS} hostile requests without a 5xx, always in the envelope, and a rejected request changes nothing`, async () => {
    const ops = OPERATIONS.filter((o) => routes.some((r) => r.template === o.path));
    expect(ops.length).toBe(OPERATIONS.length);
    const arb = fc.oneof(
      { weight: 20, arbitrary: fc.oneof(...ops.map((op) => caseArb(op, routes.find((r) => r.template === op.path)!, fix))) },
      { weight: 1, arbitrary: catchAllArb(routes, fix) },
    );
    const cases = fc.sample(arb, { numRuns: RUNS, seed: SEED });
    const { snapshot, nextXid } = await stateSnapshotter(deps.db);
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    let fiveXx = 0;
    let rejected = 0;
    const started = performance.now();
    // The state before each request: a full snapshot, refreshed whenever a request took a
    // transaction id (wrote, or tried to); a request that took none changed nothing.
    // The detector is live: a write the fuzzer did not make moves the transaction id and the snapshot.
    const probeXid = await nextXid();
    const probeState = await snapshot();
    await newBoard(deps.db, fix.ws);
    expect(await nextXid()).not.toBe(probeXid);
    expect(changedTables(probeState, await snapshot())).toEqual(["boards"]);
    let before = await snapshot();
    let xid = await nextXid();
    let compared = 0;
    for (const c of cases) {
      const headers = new Headers();
      for (const [k, v] of c.headers) headers.append(k, v);
      let res: Response;
      const req = new Request(`http://easel.test${c.path}`, { method: c.method, headers, body: c.body });
      try {
        res = await (c.route.module[c.method] as any)(req, { params: Promise.resolve(c.params) });
      } catch (err) {
        failures.push(`${c.op} ${c.method} ${c.path.slice(0, 120)}: threw ${String(err).slice(0, 200)}`);
        continue;
      }
      const text = await res.text();
      byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
      const where = `${c.op} ${c.method} ${c.path.slice(0, 120)} body=${(c.body ?? "").slice(0, 120)}`;
      if (res.status >= 500) {
        fiveXx++;
        failures.push(`${where}: ${res.status} ${text.slice(0, 200)}`);
      }
      const x = await nextXid();
      const after = x === xid ? before : await snapshot();
      if (res.status >= 400) {
        rejected++;
        const problem = envelopeProblem(res.status, text);
        if (problem) failures.push(`${where}: ${problem}`);
        if (x !== xid) {
          compared++;
          const changed = changedTables(before, after);
          if (changed.length) failures.push(`${where}: rejected with ${res.status} but changed ${changed.join(", ")}`);
        }
      }
      before = after;
      xid = x;
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      try {
        checkResponse({ method: c.method, path: c.path, status: res.status, headers: res.headers, body: parsed, text });
      } catch (err) {
        failures.push(`${where}: ${String((err as Error).message).split("\n").slice(1, 2).join(" ").slice(0, 200)}`);
      }
      if (failures.length > 50) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const statuses = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(" ");
    console.log(`[fuzz] seed=${SEED} requests=${cases.length} operations=${ops.length}+catch-alls 5xx=${fiveXx} rejected=${rejected} (state unchanged for all: ${rejected - compared} wrote nothing, ${compared} took a transaction id and were compared table by table) failures=${failures.length} in ${seconds.toFixed(1)} s; statuses ${statuses}`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(Math.min(RUNS, 10_000));
  }, 600_000); // 90-120 s alone; over 300 s when the machine was shared (load ≈ 20)
});
