import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as invitationRoute from "../../app/api/admin/workspaces/[slug]/invitations/[id]/route";
import * as invitationsRoute from "../../app/api/admin/workspaces/[slug]/invitations/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { verifyPassword } from "../../lib/auth/passwords";
import { createMemberUser, findUserByEmail } from "../../lib/auth/users";
import { invitations, memberships, type Workspace } from "../../lib/db/schema";
import { acceptInvitationAsUser, acceptInvitationWithPassword } from "../../lib/members/accept-invitation";
import { createInvitation } from "../../lib/members/create-invitation";
import { findInvitation } from "../../lib/members/find-invitation";
import { INVITATION_LIFETIME_MS } from "../../lib/members/invitation-token";
import { throttledInvitationLookup } from "../../lib/members/invite-throttle";
import { revokeInvitation } from "../../lib/members/revoke-invitation";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { newWorkspace, uniq } from "../helpers/factories";
import { newUser, sessionHeaders } from "../helpers/sessions";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let ownerHeaders: Record<string, string>;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  ownerHeaders = await sessionHeaders(deps.db, await newUser(deps.db, { owner: true }));
});

const email = () => `${uniq("inv")}@easel.test`;
const invite = (role: "viewer" | "editor" | "admin" = "viewer", to = email()) => createInvitation(deps.db, { workspace: ws, email: to, role, createdBy: null, now: deps.clock() });
const membership = async (userId: number) => (await deps.db.select().from(memberships).where(and(eq(memberships.workspaceId, ws.id), eq(memberships.userId, userId))))[0];

describe("invitations", () => {
  it("works once: sets the password, joins with the invited role, and the link is used up", async () => {
    const { token, invitation } = await invite("editor");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes
    const stored = (await deps.db.select().from(invitations).where(eq(invitations.id, invitation.id)))[0];
    expect(stored.tokenHash).not.toContain(token);
    expect(await findInvitation(deps.db, token, deps.clock())).toMatchObject({ state: "pending", role: "editor", existingUser: false, workspace: { slug: ws.slug } });

    const joined = await acceptInvitationWithPassword(deps.db, { token, password: "a fine password", now: deps.clock() });
    expect(joined).toEqual({ ok: true, email: invitation.email, workspaceSlug: ws.slug });
    const user = (await findUserByEmail(deps.db, invitation.email))!;
    expect(user.isOwner).toBe(false);
    expect((await verifyPassword("a fine password", user.passwordHash)).match).toBe(true);
    expect((await membership(user.id)).role).toBe("editor");
    // The new member's session acts in the workspace.
    expect((await call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, headers: await sessionHeaders(deps.db, user), params: { slug: ws.slug } })).status).toBe(200);

    expect(await acceptInvitationWithPassword(deps.db, { token, password: "another password", now: deps.clock() })).toEqual({ ok: false, reason: "used" });
    expect(await acceptInvitationAsUser(deps.db, { token, user, now: deps.clock() })).toEqual({ ok: false, reason: "used" });
    expect((await findInvitation(deps.db, token, deps.clock()))?.state).toBe("used");
  });

  it("is refused once expired by the clock, and not a moment before", async () => {
    const early = await invite();
    const late = await invite();
    deps.time.advance(INVITATION_LIFETIME_MS - 60_000);
    try {
      expect((await acceptInvitationWithPassword(deps.db, { token: early.token, password: "password 1", now: deps.clock() })).ok).toBe(true);
      deps.time.advance(120_000);
      expect((await findInvitation(deps.db, late.token, deps.clock()))?.state).toBe("expired");
      expect(await acceptInvitationWithPassword(deps.db, { token: late.token, password: "password 2", now: deps.clock() })).toEqual({ ok: false, reason: "expired" });
      expect(await findUserByEmail(deps.db, late.invitation.email)).toBeNull();
    } finally {
      deps.time.reset();
    }
  });

  it("is refused once revoked, and revoking twice finds nothing pending", async () => {
    const { token, invitation } = await invite();
    expect(await revokeInvitation(deps.db, { workspace: ws, id: invitation.id, now: deps.clock() })).toBe(true);
    expect(await revokeInvitation(deps.db, { workspace: ws, id: invitation.id, now: deps.clock() })).toBe(false);
    expect(await acceptInvitationWithPassword(deps.db, { token, password: "password 3", now: deps.clock() })).toEqual({ ok: false, reason: "revoked" });
    expect(await findUserByEmail(deps.db, invitation.email)).toBeNull();
  });

  it("refuses unknown and malformed links without a query", async () => {
    expect(await acceptInvitationWithPassword(deps.db, { token: "A".repeat(43), password: "password 4", now: deps.clock() })).toEqual({ ok: false, reason: "unknown" });
    expect(await acceptInvitationWithPassword(deps.db, { token: "short", password: "password 4", now: deps.clock() })).toEqual({ ok: false, reason: "unknown" });
    expect(await findInvitation(deps.db, "x'; drop table users; --", deps.clock())).toBeNull();
  });

  it("lets one of two simultaneous acceptances win", async () => {
    const { token, invitation } = await invite("viewer");
    const results = await Promise.all([
      acceptInvitationWithPassword(deps.db, { token, password: "first password", now: deps.clock() }),
      acceptInvitationWithPassword(deps.db, { token, password: "second password", now: deps.clock() }),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, reason: "used" }]);
    const user = (await findUserByEmail(deps.db, invitation.email))!;
    const winner = results[0].ok ? "first password" : "second password";
    expect((await verifyPassword(winner, user.passwordHash)).match).toBe(true);
    expect(await deps.db.select().from(memberships).where(eq(memberships.userId, user.id))).toHaveLength(1);

    // The same for an existing user joining twice at once.
    const existing = await createMemberUser(deps.db, { email: `${uniq("x")}@easel.test`, password: "existing password", now: deps.clock() });
    const other = await invite("editor", existing.email);
    const both = await Promise.all([0, 1].map(() => acceptInvitationAsUser(deps.db, { token: other.token, user: existing, now: deps.clock() })));
    expect(both.map((r) => r.ok).sort()).toEqual([false, true]);
  });

  it("adds an existing user's membership without a new password: they sign in to accept", async () => {
    const to = email();
    const user = await createMemberUser(deps.db, { email: to, password: "their own password", now: deps.clock() });
    const { token } = await invite("admin", to.toUpperCase());
    expect((await findInvitation(deps.db, token, deps.clock()))?.existingUser).toBe(true);
    // A link cannot set an existing account's password; the refusal leaves the invitation usable.
    expect(await acceptInvitationWithPassword(deps.db, { token, password: "an attacker's password", now: deps.clock() })).toEqual({ ok: false, reason: "account_exists" });
    expect((await findInvitation(deps.db, token, deps.clock()))?.state).toBe("pending");
    // Someone else signed in cannot take it.
    const stranger = await newUser(deps.db);
    expect(await acceptInvitationAsUser(deps.db, { token, user: stranger, now: deps.clock() })).toEqual({ ok: false, reason: "wrong_account" });
    expect(await membership(stranger.id)).toBeUndefined();

    expect(await acceptInvitationAsUser(deps.db, { token, user, now: deps.clock() })).toEqual({ ok: true, email: to, workspaceSlug: ws.slug });
    expect((await membership(user.id)).role).toBe("admin");
    const after = (await findUserByEmail(deps.db, to))!;
    expect(after.passwordHash).toBe(user.passwordHash);
  });

  it("throttles lookups of unknown links per client address; real links do not count", async () => {
    const address = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    const { token } = await invite();
    const unknown = () => throttledInvitationLookup(deps.db, address, deps.clock(), () => findInvitation(deps.db, "B".repeat(43), deps.clock()));
    const real = () => throttledInvitationLookup(deps.db, address, deps.clock(), () => findInvitation(deps.db, token, deps.clock()));
    for (let i = 0; i < 5; i++) expect(await real()).toMatchObject({ found: { state: "pending" } });
    for (let i = 0; i < 10; i++) expect(await unknown()).toEqual({ found: null });
    expect(await unknown()).toBeNull();
    expect(await real()).toBeNull(); // the address is at the limit, whatever it asks
    expect(await throttledInvitationLookup(deps.db, "203.0.113.9", deps.clock(), () => findInvitation(deps.db, token, deps.clock()))).toMatchObject({ found: { state: "pending" } });
  });
});

describe("invitation routes", () => {
  const params = (extra: Record<string, string> = {}) => ({ slug: ws.slug, ...extra });

  it("invites with a link to copy, lists it as pending, and revokes it", async () => {
    const to = email();
    const created = await call(invitationsRoute.POST, { method: "POST", path: `/api/admin/workspaces/${ws.slug}/invitations`, headers: ownerHeaders, params: params(), json: { invitation: { email: to, role: "editor" } } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ email: to, role: "editor" });
    expect(created.body.data.url).toMatch(/^http:\/\/easel\.test\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = created.body.data.url.split("/").at(-1);
    expect((await findInvitation(deps.db, token, deps.clock()))?.state).toBe("pending");
    const expires = new Date(created.body.data.expires_at).getTime() - new Date(created.body.data.created_at).getTime();
    expect(expires).toBe(INVITATION_LIFETIME_MS);

    const listed = await call(invitationsRoute.GET, { path: `/api/admin/workspaces/${ws.slug}/invitations`, headers: ownerHeaders, params: params() });
    expect(listed.body.data.map((i: { email: string }) => i.email)).toContain(to);
    const id = String(created.body.data.id);
    expect((await call(invitationRoute.DELETE, { method: "DELETE", path: `/api/admin/workspaces/${ws.slug}/invitations/${id}`, headers: ownerHeaders, params: params({ id }) })).status).toBe(204);
    const again = await call(invitationsRoute.GET, { path: `/api/admin/workspaces/${ws.slug}/invitations`, headers: ownerHeaders, params: params() });
    expect(again.body.data.map((i: { email: string }) => i.email)).not.toContain(to);
    expectValidation(await call(invitationRoute.DELETE, { method: "DELETE", path: `/api/admin/workspaces/${ws.slug}/invitations/${id}`, headers: ownerHeaders, params: params({ id }) }), "id");
    expect((await findInvitation(deps.db, token, deps.clock()))?.state).toBe("revoked");
  });

  it("refuses bad input with the error envelope and changes nothing", async () => {
    const before = await deps.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id));
    const post = (json: unknown) => call(invitationsRoute.POST, { method: "POST", path: `/api/admin/workspaces/${ws.slug}/invitations`, headers: ownerHeaders, params: params(), json });
    expectValidation(await post({ invitation: { email: email(), role: "owner" } }), "role");
    expectValidation(await post({ invitation: { email: "not an email", role: "viewer" } }), "email");
    expectValidation(await post({ invitation: { role: "viewer" } }), "email");
    expectError(await call(invitationsRoute.POST, { method: "POST", path: `/api/admin/workspaces/${ws.slug}/invitations`, headers: ownerHeaders, params: params(), body: "{" }), 400, "invalid_json");
    expectValidation(await call(invitationRoute.DELETE, { method: "DELETE", path: `/api/admin/workspaces/${ws.slug}/invitations/x`, headers: ownerHeaders, params: params({ id: "x" }) }), "id");
    // Someone who is a member already is refused: change their role instead.
    const member = await createMemberUser(deps.db, { email: email(), password: "member password", now: deps.clock() });
    await acceptInvitationAsUser(deps.db, { token: (await invite("viewer", member.email)).token, user: member, now: deps.clock() });
    const beforeDuplicate = await deps.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id));
    expectValidation(await post({ invitation: { email: member.email, role: "admin" } }), "email");
    expect(await deps.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id))).toHaveLength(beforeDuplicate.length);
    expect(beforeDuplicate.length).toBe(before.length + 1);
  });
});
