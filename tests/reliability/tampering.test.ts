import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { getSecret } from "../../lib/secrets";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newBoardToken, newWorkspace, randomPng } from "../helpers/factories";
import { complete, prepare } from "../helpers/uploads";
import { changedTables, stateSnapshotter } from "./helpers";

/**
 * Tampering, end to end through the route handlers: every single-character change of a
 * signed_storage_id at upload_complete, and every single-character change of a board access token
 * (plus alg none, another algorithm, another key, expiry, another workspace) at a board-token
 * route. Presigned storage URLs are covered against the embedded store's handlers in
 * lib/objectstore/s3/s3-protocol.test.ts and lib/objectstore/gcs/gcs-resumable.test.ts, webhook
 * signatures and replay windows in lib/webhooks/sign.test.ts.
 */
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Every string that differs from `s` in exactly one character (two substitutes per position), plus truncations and extensions. */
function oneCharChanges(s: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < s.length; i++) {
    const k = B64URL.indexOf(s[i]);
    for (const sub of [B64URL[(k + 1 + B64URL.length) % B64URL.length], s[i] === "." ? "A" : "."]) out.add(s.slice(0, i) + sub + s.slice(i + 1));
  }
  for (const cut of [1, 2, 43, s.length - 1]) out.add(s.slice(0, s.length - cut));
  out.add(s + "A");
  out.add(`${s}.`);
  out.delete(s);
  out.delete("");
  return [...out];
}

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let other: Workspace;
let board: Board;
let token: string;

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "100000";
  process.env.EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN = "100000";
  resetEnvCache();
  // Whole-table comparisons need a database no other test file writes to at the same time.
  deps = await useTestDeps({ isolated: true });
  ws = await newWorkspace(deps.db, { plan: "team" });
  other = await newWorkspace(deps.db, { plan: "team" });
  board = await newBoard(deps.db, ws);
  token = await newApiToken(deps.db, ws);
});

describe("signed_storage_id tampering at upload_complete", () => {
  it("refuses every one-character change (422 invalid_signed_storage_id), creates nothing, then the untouched id completes", async () => {
    const bytes = await randomPng();
    const p = await prepare(ws, token, { title: "T", media_type: "image/png", size: bytes.length });
    expect(p.status, p.text).toBe(200);
    await deps.store.s3.send(p.body.data, bytes);
    const sid: string = p.body.data.signed_storage_id;
    const variants = oneCharChanges(sid);
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const wrong: string[] = [];
    for (const v of variants) {
      const c = await complete(ws, token, { signed_storage_id: v });
      const code = c.body?.errors?.[0]?.extensions?.code;
      if (c.status !== 422 || code !== "invalid_signed_storage_id") wrong.push(`${v}: ${c.status} ${code}`);
    }
    console.log(`[tampering] signed_storage_id: ${variants.length} one-character variants of a ${sid.length}-character id, ${variants.length - wrong.length} refused with 422 invalid_signed_storage_id`);
    expect(wrong).toEqual([]);
    expect(changedTables(before, await snapshot())).toEqual([]);
    // Another workspace's caller with the genuine id: refused too.
    const foreign = await complete(other, await newApiToken(deps.db, other), { signed_storage_id: sid });
    expect([foreign.status, foreign.body.errors[0].extensions.code]).toEqual([422, "invalid_signed_storage_id"]);
    const ok = await complete(ws, token, { signed_storage_id: sid });
    expect(ok.status, ok.text).toBe(200);
  });

  it("refuses the genuine id after 24 h (Easel's clock)", async () => {
    const bytes = await randomPng();
    const p = await prepare(ws, token, { title: "T", media_type: "image/png", size: bytes.length });
    await deps.store.s3.send(p.body.data, bytes);
    deps.time.advance(24 * 3600 * 1000 + 1000);
    try {
      const c = await complete(ws, token, { signed_storage_id: p.body.data.signed_storage_id });
      expect([c.status, c.body.errors[0].extensions.code]).toEqual([422, "invalid_signed_storage_id"]);
    } finally {
      deps.time.reset();
    }
  });
});

describe("board access token tampering", () => {
  const listBoards = (bearer: string, slug = ws.slug) => call(boardsRoute.GET, { method: "GET", path: `/v1/${slug}/boards`, token: bearer, params: { slug } });

  it("accepts the genuine token and refuses every one-character change with 401", async () => {
    const jwt = await newBoardToken(deps.db, ws, board.token, { expiresIn: 3600 });
    const ok = await listBoards(jwt);
    expect(ok.status, ok.text).toBe(200);
    const variants = oneCharChanges(jwt).filter((v) => v.split(".").length === 3 && v.split(".").every((seg, i) => i === 2 || seg.length > 0));
    // The last character of a base64url segment carries unused bits: a change there that decodes to
    // the same bytes is the same token (jose decodes leniently), not a forgery. Every change that
    // alters the decoded header, payload or signature must be refused.
    const bytesOf = (t: string) => t.split(".").map((seg) => Buffer.from(seg, "base64url").toString("hex")).join(".");
    const wrong: string[] = [];
    let sameBytes = 0;
    for (const v of variants) {
      const r = await listBoards(v);
      if (bytesOf(v) === bytesOf(jwt)) {
        sameBytes++;
        continue;
      }
      if (r.status !== 401 || r.body?.errors?.[0]?.extensions?.code !== "unauthenticated") wrong.push(`${v}: ${r.status} ${r.text.slice(0, 80)}`);
    }
    console.log(`[tampering] board JWT: ${variants.length} one-character variants, ${variants.length - sameBytes - wrong.length} byte-changing ones refused with 401, ${sameBytes} non-canonical spellings of the same bytes`);
    expect(wrong).toEqual([]);
  });

  it("refuses alg none, another algorithm, another key, a forged payload and an expired token", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { ws: ws.id, board: board.token, iss: "easel", aud: "easel:board", jti: "x", iat: now, exp: now + 3600 };
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const secret = new TextEncoder().encode(await getSecret(deps.db, "board_token_key"));
    const genuine = await newBoardToken(deps.db, ws, board.token, { expiresIn: 3600 });
    const [h, , sig] = genuine.split(".");
    const cases: Record<string, string> = {
      "alg none": `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`,
      "alg none with the genuine signature": `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.${sig}`,
      HS512: await new SignJWT({ ws: ws.id, board: board.token }).setProtectedHeader({ alg: "HS512" }).setIssuer("easel").setAudience("easel:board").setJti("x").setIssuedAt(now).setExpirationTime(now + 3600).sign(secret),
      "another key": await new SignJWT({ ws: ws.id, board: board.token }).setProtectedHeader({ alg: "HS256" }).setIssuer("easel").setAudience("easel:board").setJti("x").setIssuedAt(now).setExpirationTime(now + 3600).sign(new TextEncoder().encode("not-the-key")),
      "payload swapped under the genuine signature": `${h}.${b64({ ...claims, board: "other" })}.${sig}`,
      "no expiry": await new SignJWT({ ws: ws.id, board: board.token }).setProtectedHeader({ alg: "HS256" }).setIssuer("easel").setAudience("easel:board").setJti("x").setIssuedAt(now).sign(secret),
      "another audience": await new SignJWT({ ws: ws.id, board: board.token }).setProtectedHeader({ alg: "HS256" }).setIssuer("easel").setAudience("easel:api").setJti("x").setIssuedAt(now).setExpirationTime(now + 3600).sign(secret),
      expired: await newBoardToken(deps.db, ws, board.token, { now: new Date(Date.now() - 7200e3), expiresIn: 60 }),
    };
    const got = Object.fromEntries(await Promise.all(Object.entries(cases).map(async ([name, jwt]) => [name, (await listBoards(jwt)).status])));
    expect(got).toEqual(Object.fromEntries(Object.keys(cases).map((k) => [k, 401])));
    // The genuine token becomes 401 once Easel's clock passes its expiry.
    deps.time.advance(3601 * 1000);
    try {
      expect((await listBoards(genuine)).status).toBe(401);
    } finally {
      deps.time.reset();
    }
  });

  it("a genuine token of one workspace reads nothing of another", async () => {
    const otherBoard = await newBoard(deps.db, other);
    const jwt = await newBoardToken(deps.db, other, otherBoard.token, { expiresIn: 3600 });
    const r = await listBoards(jwt, ws.slug);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(r.text).not.toContain(board.token);
    console.log(`[tampering] board JWT of another workspace on this workspace: ${r.status} ${r.body?.errors?.[0]?.extensions?.code}`);
  });
});
