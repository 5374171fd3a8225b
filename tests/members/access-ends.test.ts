import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as invitationsRoute from "../../app/api/admin/workspaces/[slug]/invitations/route";
import * as memberRoute from "../../app/api/admin/workspaces/[slug]/members/[userId]/route";
import * as membersRoute from "../../app/api/admin/workspaces/[slug]/members/route";
import * as tokensRoute from "../../app/api/admin/workspaces/[slug]/tokens/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { createApiToken } from "../../lib/auth/api-tokens";
import { issueApiToken } from "../../lib/auth/manage-api-tokens";
import { apiTokens, invitations, type User, type Workspace } from "../../lib/db/schema";
import { acceptInvitationWithPassword } from "../../lib/members/accept-invitation";
import { addMembership } from "../../lib/members/add-member";
import { createInvitation } from "../../lib/members/create-invitation";
import { findInvitation } from "../../lib/members/find-invitation";
import { ApiTokenJson, InvitationJson, MemberJson, MemberRemovedJson, RoleChangedJson } from "../../lib/openapi/schemas/members";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { newWorkspace, uniq } from "../helpers/factories";
import { newUser, sessionHeaders } from "../helpers/sessions";
import { adminPath, issueToken as issueTokenAs, newMember as newMemberOf } from "./helpers";

/**
 * Contract §11a: what an admin made (API tokens, invitations) ends when they are removed or lose
 * the admin role, in the same write; an owner's tokens, other people's, and the person's tokens
 * and invitations in other workspaces stay. Everything is made and checked through the routes.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;

beforeAll(async () => {
  deps = await useTestDeps();
});

const path = adminPath;
const issueToken = (ws: Workspace, by: User, name: string) => issueTokenAs(deps.db, ws, by, name);

async function invite(ws: Workspace, by: User, role = "admin"): Promise<{ token: string; email: string }> {
  const email = `${uniq("invited")}@easel.test`;
  const res = await call(invitationsRoute.POST, { method: "POST", path: path(ws, "invitations"), headers: await sessionHeaders(deps.db, by), params: { slug: ws.slug }, json: { invitation: { email, role } } });
  expect(res.status).toBe(201);
  expect(res.body.data.created_by).toEqual({ user_id: by.id, email: by.email });
  return { token: new URL(res.body.data.url).pathname.split("/").pop()!, email };
}

/** POST /v1/:slug/boards with an API token: 201 while it lives. */
const createBoardWith = (ws: Workspace, token: string) => call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, params: { slug: ws.slug }, json: { board: { title: "written by a token" } } });
const listBoardsWith = (ws: Workspace, token: string) => call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, token, params: { slug: ws.slug } });
const invitationState = async (token: string) => (await findInvitation(deps.db, token, deps.clock()))?.state;

async function expectTokenDead(ws: Workspace, token: string) {
  expectError(await createBoardWith(ws, token), 401, "unauthenticated");
  expectError(await listBoardsWith(ws, token), 401, "unauthenticated");
}

async function expectInvitationDead(token: string) {
  expect(await invitationState(token)).toBe("revoked");
  expect(await acceptInvitationWithPassword(deps.db, { token, password: "a fine password", now: deps.clock() })).toEqual({ ok: false, reason: "revoked" });
}

const newMember = (ws: Workspace, role: "viewer" | "editor" | "admin", opts: { owner?: boolean } = {}) => newMemberOf(deps.db, deps.clock(), ws, role, opts);

describe("removing an admin", () => {
  let ws: Workspace;
  let other: Workspace;
  let owner: User;
  let leaver: User;
  let stays: User;

  beforeAll(async () => {
    ws = await newWorkspace(deps.db);
    other = await newWorkspace(deps.db);
    owner = await newUser(deps.db, { owner: true });
    leaver = await newMember(ws, "admin");
    await addMembership(deps.db, { workspace: other, userId: leaver.id, role: "admin", now: deps.clock() });
    stays = await newMember(ws, "admin");
  });

  it("revokes the API tokens and pending invitations they made there, and nothing else", async () => {
    const leaversToken = await issueToken(ws, leaver, "leaver's build");
    const leaversSecond = await issueToken(ws, leaver, "leaver's script");
    const leaversInvitation = await invite(ws, leaver, "admin");
    const leaversTokenElsewhere = await issueToken(other, leaver, "leaver's other");
    const leaversInvitationElsewhere = await invite(other, leaver, "admin");
    const ownersToken = await issueToken(ws, owner, "owner's");
    const staysToken = await issueToken(ws, stays, "colleague's");
    const staysInvitation = await invite(ws, stays, "viewer");
    const { token: cliToken } = await createApiToken(deps.db, { workspaceId: ws.id, name: "from the cli", scopes: ["read", "write"], webhooks: false, now: deps.clock() });

    // Before: the token writes, and the members list says what removal will revoke.
    expect((await createBoardWith(ws, leaversToken)).status).toBe(201);
    const ownerSession = await sessionHeaders(deps.db, owner);
    const listed = await call(membersRoute.GET, { path: path(ws, "members"), headers: ownerSession, params: { slug: ws.slug } });
    for (const m of listed.body.data) MemberJson.parse(m);
    const made = Object.fromEntries(listed.body.data.map((m: { email: string; made: unknown }) => [m.email, m.made]));
    expect(made).toEqual({ [leaver.email]: { api_tokens: 2, invitations: 1, webhook_triggers: 0 }, [stays.email]: { api_tokens: 1, invitations: 1, webhook_triggers: 0 } });

    const removed = await call(memberRoute.DELETE, { method: "DELETE", path: path(ws, `members/${leaver.id}`), headers: ownerSession, params: { slug: ws.slug, userId: String(leaver.id) } });
    expect(removed.status).toBe(200);
    expect(MemberRemovedJson.parse(removed.body.data)).toEqual({ user_id: leaver.id, revoked: { api_tokens: 2, invitations: 1, webhook_triggers: 0 } });

    await expectTokenDead(ws, leaversToken);
    await expectTokenDead(ws, leaversSecond);
    await expectInvitationDead(leaversInvitation.token);

    // The owner's, the colleague's and the CLI's tokens write on; the colleague's invitation is pending.
    for (const token of [ownersToken, staysToken, cliToken]) expect((await createBoardWith(ws, token)).status).toBe(201);
    expect(await invitationState(staysInvitation.token)).toBe("pending");
    // The leaver is still an admin of the other workspace: what they made there is untouched.
    expect((await createBoardWith(other, leaversTokenElsewhere)).status).toBe(201);
    expect(await invitationState(leaversInvitationElsewhere.token)).toBe("pending");

    // The token list shows who made what, and the leaver's tokens as revoked.
    const tokens = await call(tokensRoute.GET, { path: path(ws, "tokens"), headers: ownerSession, params: { slug: ws.slug } });
    for (const t of tokens.body.data) ApiTokenJson.parse(t);
    const byName = Object.fromEntries(tokens.body.data.map((t: { name: string; created_by: unknown; revoked_at: string | null }) => [t.name, { by: t.created_by, revoked: t.revoked_at !== null }]));
    expect(byName).toEqual({
      "leaver's build": { by: { user_id: leaver.id, email: leaver.email }, revoked: true },
      "leaver's script": { by: { user_id: leaver.id, email: leaver.email }, revoked: true },
      "owner's": { by: { user_id: owner.id, email: owner.email }, revoked: false },
      "colleague's": { by: { user_id: stays.id, email: stays.email }, revoked: false },
      "from the cli": { by: null, revoked: false },
    });
    const pending = await call(invitationsRoute.GET, { path: path(ws, "invitations"), headers: ownerSession, params: { slug: ws.slug } });
    for (const i of pending.body.data) InvitationJson.parse(i);
    expect(pending.body.data.map((i: { email: string; created_by: unknown }) => [i.email, i.created_by])).toEqual([[staysInvitation.email, { user_id: stays.id, email: stays.email }]]);
  });

  it("writes no token or invitation for someone removed after their request was authorized", async () => {
    // The routes authorize first and write after; these are the writes of a request that passed the check just before the removal.
    const late = { workspace: ws, now: deps.clock() };
    const countOf = async () => ({
      tokens: (await deps.db.select().from(apiTokens).where(eq(apiTokens.createdBy, leaver.id))).length,
      invitations: (await deps.db.select().from(invitations).where(eq(invitations.createdBy, leaver.id))).length,
    });
    const before = await countOf();
    await expect(issueApiToken(deps.db, { ...late, name: "too late", scopes: ["read", "write"], webhooks: false, createdBy: leaver.id })).rejects.toMatchObject({ code: "insufficient_scope" });
    await expect(createInvitation(deps.db, { ...late, email: `${uniq("late")}@easel.test`, role: "admin", createdBy: leaver.id })).rejects.toMatchObject({ code: "insufficient_scope" });
    expect(await countOf()).toEqual(before);
    // The owner, who is no member, and a current admin still issue both.
    expect((await issueApiToken(deps.db, { ...late, name: "owner's late", scopes: ["read"], webhooks: false, createdBy: owner.id })).created_by?.email).toBe(owner.email);
    expect((await createInvitation(deps.db, { ...late, email: `${uniq("ok")}@easel.test`, role: "viewer", createdBy: stays.id })).invitation.created_by?.email).toBe(stays.email);
  });

  it("joining again does not bring a revoked token back", async () => {
    const back = await newMember(ws, "admin");
    const token = await issueToken(ws, back, "comes back");
    const removed = await call(memberRoute.DELETE, { method: "DELETE", path: path(ws, `members/${back.id}`), headers: await sessionHeaders(deps.db, owner), params: { slug: ws.slug, userId: String(back.id) } });
    expect(removed.body.data.revoked).toEqual({ api_tokens: 1, invitations: 0, webhook_triggers: 0 });
    await addMembership(deps.db, { workspace: ws, userId: back.id, role: "admin", now: deps.clock() });
    await expectTokenDead(ws, token);
  });

  it("an owner who is also listed as a member keeps their tokens and invitations", async () => {
    const ownerMember = await newMember(ws, "admin", { owner: true });
    const token = await issueToken(ws, ownerMember, "owner-member's");
    const invitation = await invite(ws, ownerMember, "editor");
    const session = await sessionHeaders(deps.db, stays);
    const demoted = await call(memberRoute.PATCH, { method: "PATCH", path: path(ws, `members/${ownerMember.id}`), headers: session, params: { slug: ws.slug, userId: String(ownerMember.id) }, json: { member: { role: "viewer" } } });
    expect(demoted.body.data.revoked).toEqual({ api_tokens: 0, invitations: 0, webhook_triggers: 0 });
    const removed = await call(memberRoute.DELETE, { method: "DELETE", path: path(ws, `members/${ownerMember.id}`), headers: session, params: { slug: ws.slug, userId: String(ownerMember.id) } });
    expect(removed.body).toEqual({ data: { user_id: ownerMember.id, revoked: { api_tokens: 0, invitations: 0, webhook_triggers: 0 } } });
    expect((await createBoardWith(ws, token)).status).toBe(201);
    expect(await invitationState(invitation.token)).toBe("pending");
  });
});

describe("demoting an admin", () => {
  let ws: Workspace;
  let other: Workspace;
  let owner: User;

  beforeAll(async () => {
    ws = await newWorkspace(deps.db);
    other = await newWorkspace(deps.db);
    owner = await newUser(deps.db, { owner: true });
  });

  const setRole = async (user: User, role: string) =>
    call(memberRoute.PATCH, { method: "PATCH", path: path(ws, `members/${user.id}`), headers: await sessionHeaders(deps.db, owner), params: { slug: ws.slug, userId: String(user.id) }, json: { member: { role } } });

  it("to editor revokes what they made there; they keep writing with their session, and other workspaces keep theirs", async () => {
    const demoted = await newMember(ws, "admin");
    await addMembership(deps.db, { workspace: other, userId: demoted.id, role: "admin", now: deps.clock() });
    const token = await issueToken(ws, demoted, "before the demotion");
    const invitation = await invite(ws, demoted, "admin");
    const elsewhere = await issueToken(other, demoted, "elsewhere");
    const ownersToken = await issueToken(ws, owner, "owner's");
    expect((await createBoardWith(ws, token)).status).toBe(201);

    // Re-setting the admin role changes nothing.
    const same = await setRole(demoted, "admin");
    expect(same.body).toEqual({ data: { user_id: demoted.id, role: "admin", revoked: { api_tokens: 0, invitations: 0, webhook_triggers: 0 } } });
    expect((await createBoardWith(ws, token)).status).toBe(201);

    const res = await setRole(demoted, "editor");
    expect(res.status).toBe(200);
    expect(RoleChangedJson.parse(res.body.data)).toEqual({ user_id: demoted.id, role: "editor", revoked: { api_tokens: 1, invitations: 1, webhook_triggers: 0 } });
    await expectTokenDead(ws, token);
    await expectInvitationDead(invitation.token);
    // An editor's own session still writes: only what they made as an admin ended.
    const session = await sessionHeaders(deps.db, demoted);
    expect((await call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, headers: session, params: { slug: ws.slug }, json: { board: { title: "by the editor" } } })).status).toBe(201);
    expect((await createBoardWith(ws, ownersToken)).status).toBe(201);
    expect((await createBoardWith(other, elsewhere)).status).toBe(201);

    // A further step down finds nothing left to revoke.
    expect((await setRole(demoted, "viewer")).body.data.revoked).toEqual({ api_tokens: 0, invitations: 0, webhook_triggers: 0 });
  });

  it("to viewer, through `member add` with a lower role as well, revokes them the same way", async () => {
    const demoted = await newMember(ws, "admin");
    const token = await issueToken(ws, demoted, "viewer-to-be");
    const invitation = await invite(ws, demoted, "editor");
    const changed = await addMembership(deps.db, { workspace: ws, userId: demoted.id, role: "viewer", now: deps.clock() });
    expect(changed).toEqual({ userId: demoted.id, role: "viewer", revoked: { api_tokens: 1, invitations: 1, webhook_triggers: 0 } });
    await expectTokenDead(ws, token);
    await expectInvitationDead(invitation.token);
  });

  it("refuses a bad role with the envelope and revokes nothing", async () => {
    const admin = await newMember(ws, "admin");
    const token = await issueToken(ws, admin, "kept");
    const res = await setRole(admin, "owner");
    expectError(res, 422, "validation_failed");
    expect((await createBoardWith(ws, token)).status).toBe(201);
  });
});
