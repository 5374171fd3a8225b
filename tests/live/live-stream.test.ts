import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as liveRoute from "../../app/api/live/[slug]/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { newId } from "../../lib/jobs/executor/ids";
import { liveHub } from "../../lib/live/live-hub";
import { STREAM_LIMITS, openStreamCount } from "../../lib/live/stream-slots";
import { addMembership } from "../../lib/members/add-member";
import { changeMemberRole } from "../../lib/members/change-role";
import { removeMembership } from "../../lib/members/remove-member";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { newUser, sessionHeaders as sessionHeadersOf } from "../helpers/sessions";
import { uploadAsset } from "../helpers/uploads";
import { patch, revert } from "../helpers/versions";
import { expectError, isChange, openStream, sessionHeaders, type OpenStream } from "./helpers";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let other: Workspace;
let parent: Board;
let board: Board;
let token: string;
let otherToken: string;
let session: Record<string, string>;
const opened: OpenStream[] = [];

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  other = await newWorkspace(deps.db, { plan: "team" });
  parent = await newBoard(deps.db, ws, { title: "Parent" });
  board = await newBoard(deps.db, ws, { title: "Child", parentId: parent.id });
  token = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
  otherToken = await newApiToken(deps.db, other, { scopes: ["read", "write"] });
  session = await sessionHeaders(deps.db);
});

afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

async function watch(slug = ws.slug, headers = session) {
  const s = await openStream(slug, headers);
  opened.push(s);
  return s;
}

const upload = async (w = ws, t = token) => (await uploadAsset(w, t, deps.store.s3, await randomPng(), w === ws ? { collection_token: board.token } : {})).asset as { token: string };

describe("GET /api/live/:slug access", () => {
  const get = (slug: string, headers: Record<string, string>) => liveRoute.GET(new Request(`http://easel.test/api/live/${slug}`, { headers }), { params: Promise.resolve({ slug }) });

  it("wants a web UI session: none, or a bearer token alone, answers 401", async () => {
    await expectError(await get(ws.slug, { "sec-fetch-site": "same-origin" }), 401, "unauthenticated");
    await expectError(await get(ws.slug, { "sec-fetch-site": "same-origin", authorization: `Bearer ${token}` }), 401, "unauthenticated");
  });

  it("refuses a page of another site, even with the session cookie", async () => {
    await expectError(await get(ws.slug, { ...session, "sec-fetch-site": "cross-site" }), 401, "unauthenticated");
    const { "sec-fetch-site": _, ...cookieOnly } = session;
    await expectError(await get(ws.slug, { ...cookieOnly, origin: "https://evil.example" }), 401, "unauthenticated");
    await expectError(await get(ws.slug, cookieOnly), 401, "unauthenticated");
    expect(openStreamCount()).toBe(0);
  });

  it("answers 404 in the error envelope for an unknown workspace", async () => {
    await expectError(await get("no-such-workspace", session), 404, "workspace_not_found");
    await expectError(await get("x".repeat(500), session), 404, "workspace_not_found");
  });

  it("streams event-stream text with a retry delay and a ready event", async () => {
    const s = await watch();
    expect(s.status).toBe(200);
    expect(s.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(s.response.headers.get("cache-control")).toContain("no-transform");
    await s.next((e) => e.event === "ready");
    expect(s.text()).toMatch(/^retry: \d+\n\n/);
  });
});

describe("what the stream delivers", () => {
  it("an asset create: asset_added with the asset, its board and the board's parent", async () => {
    const s = await watch();
    await s.next((e) => e.event === "ready");
    const asset = await upload();
    const e = await s.next(isChange(asset.token, "asset_added"));
    expect(e.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(e.data).toMatchObject({ kind: "asset_added", asset: asset.token, version: 1 });
    expect(new Set((e.data as { boards: string[] }).boards)).toEqual(new Set([board.token, parent.token]));
    expect(e.data).not.toHaveProperty("workspaceId");
  });

  it("a version write and a revert, with the head's version number", async () => {
    const asset = await upload();
    const s = await watch();
    await s.next((e) => e.event === "ready");
    const w = await patch(ws, token, asset.token, { create_version: true, title: "Second" });
    expect(w.status, w.text).toBe(200);
    const written = await s.next(isChange(asset.token, "asset_updated"));
    expect(written.data).toMatchObject({ version: w.body.data.head_version_number });
    expect((written.data as { changed: string[] }).changed).toContain("title");
    const r = await revert(ws, token, asset.token, { version_number: 1 });
    expect(r.status, r.text).toBe(200);
    const reverted = await s.next(isChange(asset.token, "asset_updated"));
    expect(reverted.data).toMatchObject({ version: r.body.data.head_version_number });
    expect(reverted.id! > written.id!).toBe(true);
  });

  it("a refused write sends nothing; another workspace's changes never appear", async () => {
    const s = await watch();
    await s.next((e) => e.event === "ready");
    const theirs = await upload(other, otherToken);
    const failed = await patch(ws, token, "no-such-asset", { create_version: true, title: "x" });
    expect(failed.status).toBe(404);
    const mine = await upload();
    await s.next(isChange(mine.token, "asset_added"));
    expect(s.text()).not.toContain(theirs.token);
    // The other workspace's own stream does see it.
    const t = await watch(other.slug);
    await t.next((e) => e.event === "ready");
    const again = await patch(other, otherToken, theirs.token, { title: "seen there" });
    expect(again.status, again.text).toBe(200);
    await t.next(isChange(theirs.token, "asset_updated"));
    await new Promise((r) => setTimeout(r, 200));
    expect(s.text()).not.toContain(theirs.token);
  });

  it("an encode finishing or failing reaches the stream (the job's own announcement)", async () => {
    const { announceJobResult } = await import("../../lib/live/announce-from-job");
    const { markFailed } = await import("../../lib/encode/fail");
    const asset = await upload();
    const s = await watch();
    await s.next((e) => e.event === "ready");
    const { assets } = await import("../../lib/db/schema");
    const { eq } = await import("drizzle-orm");
    const [row] = await deps.db.select().from(assets).where(eq(assets.token, asset.token));
    await markFailed(deps, row.id, row.storageKey, "encode_failed");
    await s.next(isChange(asset.token, "encode_failed"));
    await announceJobResult(deps.db, { kind: "asset_processed", assetId: row.id });
    await s.next(isChange(asset.token, "asset_processed"));
  });
});

describe("reconnecting", () => {
  it("Last-Event-ID within the window replays what was missed, in order", async () => {
    const s = await watch();
    await s.next((e) => e.event === "ready");
    const first = await upload();
    const seen = await s.next(isChange(first.token));
    s.close();
    const a = await upload();
    const b = await upload();
    const again = await watch(ws.slug, { ...session, "last-event-id": seen.id! });
    const replayA = await again.next((e) => e.event === "change", 2_000);
    expect(replayA.data).toMatchObject({ asset: a.token, kind: "asset_added" });
    const replayB = await again.next((e) => e.event === "change", 2_000);
    expect(replayB.data).toMatchObject({ asset: b.token, kind: "asset_added" });
    expect(again.text()).not.toContain("event: reset");
  });

  it("a first stream with ?since= replays this workspace's changes since then: none falls between a page's render and its stream", async () => {
    const pageRendered = Date.now() - 1;
    const before = await upload();
    const s = await openStream(`${ws.slug}`, session, `?since=${pageRendered}`);
    opened.push(s);
    const replayed = await s.next((e) => e.event === "change", 2_000);
    expect(replayed.data).toMatchObject({ asset: before.token, kind: "asset_added" });
    // A time before this node heard everything (or a day off) cannot be answered: reset, or ignored.
    const tooOld = await openStream(ws.slug, session, `?since=${Date.now() - 3_600_000}`);
    opened.push(tooOld);
    await tooOld.next((e) => e.event === "reset", 2_000);
    const nonsense = await openStream(ws.slug, session, "?since=yesterday");
    opened.push(nonsense);
    await nonsense.next((e) => e.event === "ready", 2_000);
  });

  it("a cursor this node does not hold (too old, or malformed) answers reset: refetch everything", async () => {
    for (const cursor of [newId(Date.now() - 86_400_000), "not-a-cursor"]) {
      const s = await watch(ws.slug, { ...session, "last-event-id": cursor });
      await s.next((e) => e.event === "reset", 2_000);
      expect(s.text()).not.toContain("event: ready");
    }
  });
});

describe("resources", () => {
  it("a disconnect removes its listener and gives its slot back", async () => {
    const hub = await liveHub(deps.db);
    const before = hub.listenerCount;
    const streams = await Promise.all([1, 2, 3].map(() => openStream(ws.slug, session)));
    for (const s of streams) await s.next((e) => e.event === "ready");
    expect(hub.listenerCount).toBe(before + 3);
    expect(openStreamCount()).toBe(3);
    streams[0].close();
    await streams[1].cancel();
    streams[2].close();
    await expect.poll(() => hub.listenerCount).toBe(before);
    expect(openStreamCount()).toBe(0);
    // A write after they left reaches nobody and breaks nothing.
    await upload();
  });

  it(`bounds the streams of one user (${STREAM_LIMITS.perUser}) with 429 rate_limited`, async () => {
    const streams = [];
    for (let i = 0; i < STREAM_LIMITS.perUser; i++) streams.push(await watch());
    for (const s of streams) expect(s.status).toBe(200);
    const refused = await liveRoute.GET(new Request(`http://easel.test/api/live/${ws.slug}`, { headers: session }), { params: Promise.resolve({ slug: ws.slug }) });
    await expectError(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("30");
    // Another user is not held back by them.
    const someoneElse = await watch(ws.slug, await sessionHeaders(deps.db));
    expect(someoneElse.status).toBe(200);
    for (const s of opened.splice(0)) s.close();
    await expect.poll(() => openStreamCount()).toBe(0);
  });

  it("sends heartbeat comments while idle", async () => {
    const { openLiveStream } = await import("../../lib/live/open-stream");
    const res = await openLiveStream(deps, new Request(`http://easel.test/api/live/${ws.slug}`, { headers: session }), ws.slug, { heartbeatMs: 50 });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes(": keep-alive\n\n")) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    await expect.poll(() => openStreamCount()).toBe(0);
  });
});

describe("members (contract §11)", () => {
  it("a viewer may watch their workspace; a member of another workspace gets 404; a removed member's stream ends at once and a new one is refused", async () => {
    const viewer = await newUser(deps.db);
    const outsider = await newUser(deps.db);
    const stays = await newUser(deps.db);
    await addMembership(deps.db, { workspace: ws, userId: viewer.id, role: "viewer", now: deps.clock() });
    await addMembership(deps.db, { workspace: ws, userId: stays.id, role: "viewer", now: deps.clock() });
    await addMembership(deps.db, { workspace: other, userId: outsider.id, role: "admin", now: deps.clock() });
    const viewerHeaders = await sessionHeadersOf(deps.db, viewer);
    const get = (headers: Record<string, string>) => liveRoute.GET(new Request(`http://easel.test/api/live/${ws.slug}`, { headers }), { params: Promise.resolve({ slug: ws.slug }) });
    await expectError(await get(await sessionHeadersOf(deps.db, outsider)), 404, "workspace_not_found");

    const s = await watch(ws.slug, viewerHeaders);
    const staying = await watch(ws.slug, await sessionHeadersOf(deps.db, stays));
    await s.next((e) => e.event === "ready");
    await staying.next((e) => e.event === "ready");
    const first = await upload();
    await s.next(isChange(first.token, "asset_added"));

    expect(await removeMembership(deps.db, { workspace: ws, userId: viewer.id, now: deps.clock() })).not.toBeNull();
    await expect(s.next(() => false, 3_000)).rejects.toThrow(/^stream ended/);
    await expectError(await get(viewerHeaders), 404, "workspace_not_found");
    // Another member's stream of the same workspace goes on.
    const second = await upload();
    await staying.next(isChange(second.token, "asset_added"));
  });
});

describe("a role change", () => {
  it("ends the member's open streams of the workspace (each filters by the role it opened with); a new one opens under the new role", async () => {
    const admin = await newUser(deps.db);
    await addMembership(deps.db, { workspace: ws, userId: admin.id, role: "admin", now: deps.clock() });
    const headers = await sessionHeadersOf(deps.db, admin);
    const s = await watch(ws.slug, headers);
    await s.next((e) => e.event === "ready");

    expect(await changeMemberRole(deps.db, { workspace: ws, userId: admin.id, role: "viewer", now: deps.clock() })).not.toBeNull();
    await expect(s.next(() => false, 3_000)).rejects.toThrow(/^stream ended/);
    const again = await watch(ws.slug, headers);
    await again.next((e) => e.event === "ready");
    const added = await upload();
    await again.next(isChange(added.token, "asset_added"));
  });
});

describe("stopping (last: the file's hub stays stopped)", () => {
  it("the hub's stop ends every open stream, and a stream opened after it ends at once with its retry delay", async () => {
    const hub = await liveHub(deps.db);
    const s = await watch();
    await s.next((e) => e.event === "ready");
    await hub.stop();
    await expect(s.next(() => false, 2_000)).rejects.toThrow(/^stream ended/);
    const late = await watch();
    expect(late.status).toBe(200);
    await expect(late.next(() => false, 2_000)).rejects.toThrow(/^stream ended/);
    expect(late.text()).toMatch(/^retry: \d+\n\n$/);
    await expect.poll(() => openStreamCount()).toBe(0);
  });
});
