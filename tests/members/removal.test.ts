import { beforeAll, describe, expect, it } from "vitest";
import * as memberRoute from "../../app/api/admin/workspaces/[slug]/members/[userId]/route";
import * as membersRoute from "../../app/api/admin/workspaces/[slug]/members/route";
import * as tokensRoute from "../../app/api/admin/workspaces/[slug]/tokens/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { sessionPrincipal } from "../../lib/auth/session-principal";
import type { User, Workspace } from "../../lib/db/schema";
import { addMembership } from "../../lib/members/add-member";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { newWorkspace } from "../helpers/factories";
import { newUser, sessionHeaders } from "../helpers/sessions";

/**
 * Contract §11: removing or demoting a member ends their rights at once. The member's session
 * cookie stays the same throughout (no sign-out, no new sign-in); each request reads the roles anew.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let member: User;
let memberSession: Record<string, string>;
let adminSession: Record<string, string>;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  member = await newUser(deps.db);
  const admin = await newUser(deps.db);
  await addMembership(deps.db, { workspace: ws, userId: member.id, role: "admin", now: deps.clock() });
  await addMembership(deps.db, { workspace: ws, userId: admin.id, role: "admin", now: deps.clock() });
  memberSession = await sessionHeaders(deps.db, member);
  adminSession = await sessionHeaders(deps.db, admin);
});

const listBoards = () => call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, headers: memberSession, params: { slug: ws.slug } });
const createBoard = () => call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, headers: memberSession, params: { slug: ws.slug }, json: { board: { title: "by the member" } } });
const listTokens = () => call(tokensRoute.GET, { path: `/api/admin/workspaces/${ws.slug}/tokens`, headers: memberSession, params: { slug: ws.slug } });
const setRole = (role: string) =>
  call(memberRoute.PATCH, { method: "PATCH", path: `/api/admin/workspaces/${ws.slug}/members/${member.id}`, headers: adminSession, params: { slug: ws.slug, userId: String(member.id) }, json: { member: { role } } });

describe("removal and demotion", () => {
  it("a demoted member's open session loses the rights on its next request", async () => {
    expect((await listTokens()).status).toBe(200);
    expect((await createBoard()).status).toBe(201);

    expect((await setRole("editor")).status).toBe(200);
    expectError(await listTokens(), 403, "insufficient_scope");
    expect((await createBoard()).status).toBe(201);

    expect((await setRole("viewer")).body).toEqual({ data: { user_id: member.id, role: "viewer" } });
    expectError(await createBoard(), 403, "insufficient_scope");
    expect((await listBoards()).status).toBe(200);

    // Promotion works the same way: no new sign-in.
    expect((await setRole("editor")).status).toBe(200);
    expect((await createBoard()).status).toBe(201);
  });

  it("a removed member's open session loses the workspace on its next request (404, as if it did not exist)", async () => {
    const listed = await call(membersRoute.GET, { path: `/api/admin/workspaces/${ws.slug}/members`, headers: adminSession, params: { slug: ws.slug } });
    expect(listed.body.data.map((m: { email: string }) => m.email)).toContain(member.email);
    const remove = () => call(memberRoute.DELETE, { method: "DELETE", path: `/api/admin/workspaces/${ws.slug}/members/${member.id}`, headers: adminSession, params: { slug: ws.slug, userId: String(member.id) } });
    expect((await remove()).status).toBe(204);
    expectError(await listBoards(), 404, "workspace_not_found");
    expectError(await createBoard(), 404, "workspace_not_found");
    expectError(await listTokens(), 404, "workspace_not_found");
    // The session is still a valid sign-in, with no workspace left.
    const principal = await sessionPrincipal(new Request("http://easel.test/", { headers: memberSession }), deps);
    expect(principal).toMatchObject({ kind: "session", userId: member.id, owner: false });
    expect(principal?.roles.size).toBe(0);
    expectValidation(await remove(), "userId");
    expectValidation(await setRole("viewer"), "userId");
  });

  it("refuses a bad role or user id with the error envelope", async () => {
    expectValidation(await setRole("owner"), "role");
    const bad = await call(memberRoute.DELETE, { method: "DELETE", path: `/api/admin/workspaces/${ws.slug}/members/abc`, headers: adminSession, params: { slug: ws.slug, userId: "abc" } });
    expectValidation(bad, "userId");
  });
});
