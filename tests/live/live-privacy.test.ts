import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { newId } from "../../lib/jobs/executor/ids";
import { notifyLive } from "../../lib/live/announce";
import { liveHub } from "../../lib/live/live-hub";
import { addMembership } from "../../lib/members/add-member";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newWorkspace, randomPng } from "../helpers/factories";
import { newUser, sessionHeaders as sessionHeadersOf } from "../helpers/sessions";
import { uploadAsset } from "../helpers/uploads";
import { isChange, openStream, sessionHeaders, type OpenStream, type SseEvent } from "./helpers";

/**
 * A live stream tells its viewer about their own workspace only: its cursors (the `id:` of `ready`
 * and `reset`) never name another workspace's message, so they cannot show when another workspace
 * is busy, and `delivery` messages (which name webhook triggers) reach only people who may manage
 * triggers (contract §11: admins and owners).
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let busy: Workspace;
let token: string;
let busyToken: string;
let owner: Record<string, string>;
const opened: OpenStream[] = [];

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  busy = await newWorkspace(deps.db, { plan: "team" });
  token = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
  busyToken = await newApiToken(deps.db, busy, { scopes: ["read", "write"] });
  owner = await sessionHeaders(deps.db);
});

afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

// Before the file's database closes: the hub's LISTEN goes with it.
afterAll(async () => (await liveHub(deps.db)).stop());

async function watch(slug: string, headers: Record<string, string>) {
  const s = await openStream(slug, headers);
  opened.push(s);
  return s;
}

const upload = async (w: Workspace, t: string) => (await uploadAsset(w, t, deps.store.s3, await randomPng())).asset as { token: string };
const isEvent = (name: string) => (e: SseEvent) => e.event === name;

async function member(role: "viewer" | "editor" | "admin") {
  const user = await newUser(deps.db);
  await addMembership(deps.db, { workspace: ws, userId: user.id, role, now: deps.clock() });
  return sessionHeadersOf(deps.db, user);
}

describe("cursors are per workspace", () => {
  it("a stream's ready and reset cursors never name another workspace's message", async () => {
    // The other workspace is busy: its newest message is the newest this node holds.
    const theirs = await watch(busy.slug, owner);
    await theirs.next(isEvent("ready"));
    const asset = await upload(busy, busyToken);
    const change = await theirs.next(isChange(asset.token, "asset_added"));
    expect(change.id).toBeTruthy();

    const s = await watch(ws.slug, owner);
    const ready = await s.next(isEvent("ready"));
    expect(ready.id).toBeTruthy();
    expect(ready.id).not.toBe(change.id);

    const stale = await watch(ws.slug, { ...owner, "last-event-id": newId(Date.now() - 86_400_000) });
    const reset = await stale.next(isEvent("reset"));
    expect(reset.id).not.toBe(change.id);
  });

  it("a workspace's cursor is its own newest message, and a reconnect from it replays only what came after", async () => {
    const first = await upload(ws, token);
    const s = await watch(ws.slug, owner);
    const ready = await s.next(isEvent("ready"));
    const seen = await watch(ws.slug, { ...owner, "last-event-id": ready.id! });
    await seen.next(isEvent("ready"));
    expect(seen.text()).not.toContain(first.token);
    await upload(busy, busyToken);
    // Another workspace's activity leaves this workspace's cursor where it was.
    expect((await (await watch(ws.slug, owner)).next(isEvent("ready"))).id).toBe(ready.id);
  });

  it("the cursor of a quiet workspace resumes without a reset: what it had since is replayed", async () => {
    const quiet = await newWorkspace(deps.db, { plan: "team" });
    const quietToken = await newApiToken(deps.db, quiet, { scopes: ["read", "write"] });
    await upload(busy, busyToken);
    const s = await watch(quiet.slug, owner);
    const ready = await s.next(isEvent("ready"));
    s.close();
    const missed = await upload(quiet, quietToken);
    const again = await watch(quiet.slug, { ...owner, "last-event-id": ready.id! });
    await again.next(isChange(missed.token, "asset_added"));
    expect(again.text()).not.toContain("event: reset");
  });
});

describe("delivery messages reach those who manage triggers", () => {
  it("viewers and editors never receive a delivery; admins and owners do", async () => {
    const streams = {
      viewer: await watch(ws.slug, await member("viewer")),
      editor: await watch(ws.slug, await member("editor")),
      admin: await watch(ws.slug, await member("admin")),
      owner: await watch(ws.slug, owner),
    };
    for (const s of Object.values(streams)) await s.next(isEvent("ready"));
    const trigger = `trg_${newId().toLowerCase()}`;
    // Taken after every stream is ready, so the node was listening by then: a time before it began
    // to listen is outside its window and answers reset (a page then refetches), not a replay.
    const since = Date.now();
    await notifyLive(deps.db, { id: newId(), workspaceId: ws.id, kind: "delivery", trigger });
    // A change after the delivery: once a stream has it, it has had everything before it.
    const after = await upload(ws, token);
    for (const s of Object.values(streams)) await s.next(isChange(after.token, "asset_added"));
    expect(streams.viewer.text()).not.toContain(trigger);
    expect(streams.editor.text()).not.toContain(trigger);
    expect(streams.admin.text()).toContain(trigger);
    expect(streams.owner.text()).toContain(trigger);

    // Nor does a viewer's catch-up replay one.
    const replayed = await openStream(ws.slug, await member("viewer"), `?since=${since}`);
    opened.push(replayed);
    await replayed.next(isChange(after.token, "asset_added"));
    expect(replayed.text()).not.toContain(trigger);
    const adminReplay = await openStream(ws.slug, await member("admin"), `?since=${since}`);
    opened.push(adminReplay);
    await adminReplay.next((e) => e.event === "change" && (e.data as { trigger?: string }).trigger === trigger);
  });
});
