import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as memberRoute from "../../app/api/admin/workspaces/[slug]/members/[userId]/route";
import * as membersRoute from "../../app/api/admin/workspaces/[slug]/members/route";
import * as renewRoute from "../../app/v1/trigger/[id]/renew/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import { triggers, type Board, type User, type Workspace } from "../../lib/db/schema";
import { addMembership } from "../../lib/members/add-member";
import { TriggerJson } from "../../lib/openapi/schemas/webhooks";
import { planDeliveries } from "../../lib/webhooks/plan-deliveries";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newBoard, newWorkspace } from "../helpers/factories";
import { newUser, sessionHeaders } from "../helpers/sessions";
import { adminPath, issueToken as issueTokenAs, newMember as newMemberOf } from "./helpers";

/**
 * Contract §11a, for webhook triggers: a trigger carries the authority of the person who made it
 * (signed in, or through an API token they made). When they are removed from the workspace or
 * lose the admin role, their triggers there stop delivering (disabled, `maker_lost_access`), in
 * the same write that revokes their tokens; an admin who renews one takes it over.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;

beforeAll(async () => {
  deps = await useTestDeps();
});

/** A public address literal: passes the SSRF guard without a DNS lookup. */
const HOOK_URL = "https://93.184.215.14/easel-hook";
const issueToken = (ws: Workspace, by: User, name: string) => issueTokenAs(deps.db, ws, by, name);

/** POST /v1/trigger with an API token or a signed-in person's session. */
async function hookOn(ws: Workspace, board: Board, as: { token: string } | { session: User }): Promise<string> {
  const auth = "token" in as ? { token: as.token } : { headers: await sessionHeaders(deps.db, as.session) };
  const res = await call(triggerRoute.POST, { method: "POST", path: "/v1/trigger", ...auth, json: { hook: "asset_added", hook_url: HOOK_URL, organization_slug: ws.slug, collection_token: board.token } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function triggersOf(ws: Workspace, token: string): Promise<Map<string, TriggerJson>> {
  const res = await call(triggerRoute.GET, { path: `/v1/trigger?organization_slug=${ws.slug}`, token });
  expect(res.status, res.text).toBe(200);
  return new Map((res.body.data as TriggerJson[]).map((t) => [t.id, TriggerJson.parse(t)]));
}

/** The triggers an asset added to `board` would be delivered to now. */
async function deliveredTo(ws: Workspace, board: Board): Promise<string[]> {
  const asset = await insertAsset(deps.db, ws, { boardIds: [board.id] });
  const plan = await planDeliveries(deps, `evt-${asset.id}`, { assetId: asset.id, workspaceId: ws.id, kind: "asset_added", occurredAt: deps.clock().toISOString() });
  return (plan?.targets.map((t) => t.triggerId) ?? []).sort();
}

const newMember = (ws: Workspace, role: "viewer" | "editor" | "admin") => newMemberOf(deps.db, deps.clock(), ws, role);

describe("webhook triggers end with the person who made them", () => {
  let ws: Workspace;
  let other: Workspace;
  let board: Board;
  let otherBoard: Board;
  let owner: User;
  let leaver: User;
  let stays: User;

  beforeAll(async () => {
    ws = await newWorkspace(deps.db);
    other = await newWorkspace(deps.db);
    board = await newBoard(deps.db, ws);
    otherBoard = await newBoard(deps.db, other);
    owner = await newUser(deps.db, { owner: true });
    leaver = await newMember(ws, "admin");
    await addMembership(deps.db, { workspace: other, userId: leaver.id, role: "admin", now: deps.clock() });
    stays = await newMember(ws, "admin");
  });

  it("removing an admin disables the triggers they made there (by token, signed in, or before makers were recorded), says how many, and nothing else", async () => {
    const leaversToken = await issueToken(ws, leaver, "leaver's hooks");
    const byToken = await hookOn(ws, board, { token: leaversToken });
    const signedIn = await hookOn(ws, board, { session: leaver });
    // Made by a release that recorded no maker: found through the token it was made with.
    const unrecorded = await hookOn(ws, board, { token: leaversToken });
    await deps.db.update(triggers).set({ createdBy: null }).where(eq(triggers.id, unrecorded));
    const elsewhere = await hookOn(other, otherBoard, { token: await issueToken(other, leaver, "leaver's other") });
    const staysToken = await issueToken(ws, stays, "colleague's hooks");
    const colleagues = await hookOn(ws, board, { token: staysToken });
    const owners = await hookOn(ws, board, { session: owner });
    const allFive = [byToken, signedIn, unrecorded, colleagues, owners].sort();
    expect(await deliveredTo(ws, board)).toEqual(allFive);

    const ownerSession = await sessionHeaders(deps.db, owner);
    const listed = await call(membersRoute.GET, { path: adminPath(ws, "members"), headers: ownerSession, params: { slug: ws.slug } });
    const made = Object.fromEntries(listed.body.data.map((m: { email: string; made: unknown }) => [m.email, m.made]));
    expect(made).toEqual({ [leaver.email]: { api_tokens: 1, invitations: 0, webhook_triggers: 3 }, [stays.email]: { api_tokens: 1, invitations: 0, webhook_triggers: 1 } });

    const removed = await call(memberRoute.DELETE, { method: "DELETE", path: adminPath(ws, `members/${leaver.id}`), headers: ownerSession, params: { slug: ws.slug, userId: String(leaver.id) } });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toEqual({ user_id: leaver.id, revoked: { api_tokens: 1, invitations: 0, webhook_triggers: 3 } });

    // Nothing more goes to the leaver's URLs; the colleague's and the owner's triggers deliver on.
    expect(await deliveredTo(ws, board)).toEqual([colleagues, owners].sort());
    const seen = await triggersOf(ws, staysToken);
    for (const id of [byToken, signedIn, unrecorded]) expect(seen.get(id)).toMatchObject({ status: "disabled", disabled_reason: "maker_lost_access" });
    for (const id of [colleagues, owners]) expect(seen.get(id)).toMatchObject({ status: "active", disabled_at: null, disabled_reason: null });
    // The leaver is still an admin of the other workspace: their trigger there is untouched.
    expect(await deliveredTo(other, otherBoard)).toEqual([elsewhere]);
  });

  it("an admin who renews a disabled trigger takes it over: it ends with them next", async () => {
    const maker = await newMember(ws, "admin");
    const heir = await newMember(ws, "admin");
    const hook = await hookOn(ws, board, { token: await issueToken(ws, maker, "maker's") });
    const ownerSession = await sessionHeaders(deps.db, owner);
    const removed = await call(memberRoute.DELETE, { method: "DELETE", path: adminPath(ws, `members/${maker.id}`), headers: ownerSession, params: { slug: ws.slug, userId: String(maker.id) } });
    expect(removed.body.data.revoked.webhook_triggers).toBe(1);
    expect(await deliveredTo(ws, board)).not.toContain(hook);

    const heirsToken = await issueToken(ws, heir, "heir's");
    const renewed = await call(renewRoute.POST, { method: "POST", path: `/v1/trigger/${hook}/renew`, token: heirsToken, params: { id: hook } });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body).toMatchObject({ id: hook, status: "active", disabled_at: null, disabled_reason: null });
    expect(await deliveredTo(ws, board)).toContain(hook);
    const [row] = await deps.db.select().from(triggers).where(eq(triggers.id, hook));
    expect(row.createdBy).toBe(heir.id);

    // Demoting the heir to editor now ends it (with their token), and says so.
    const demoted = await call(memberRoute.PATCH, { method: "PATCH", path: adminPath(ws, `members/${heir.id}`), headers: ownerSession, params: { slug: ws.slug, userId: String(heir.id) }, json: { member: { role: "editor" } } });
    expect(demoted.status, demoted.text).toBe(200);
    expect(demoted.body.data.revoked).toEqual({ api_tokens: 1, invitations: 0, webhook_triggers: 1 });
    expect(await deliveredTo(ws, board)).not.toContain(hook);
  });

  it("a receiver's 410 still reads as receiver_gone, also when written by a release without the reason", async () => {
    const admin = await newMember(ws, "admin");
    const token = await issueToken(ws, admin, "gone");
    const hook = await hookOn(ws, board, { token });
    await deps.db.update(triggers).set({ disabledAt: deps.clock() }).where(eq(triggers.id, hook));
    expect((await triggersOf(ws, token)).get(hook)).toMatchObject({ status: "disabled", disabled_reason: "receiver_gone" });
  });
});
