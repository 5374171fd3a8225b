import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as memberRoute from "../../app/api/admin/workspaces/[slug]/members/[userId]/route";
import * as membersRoute from "../../app/api/admin/workspaces/[slug]/members/route";
import * as tokensRoute from "../../app/api/admin/workspaces/[slug]/tokens/route";
import * as mediaRoute from "../../app/media/[...path]/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { createBoardToken } from "../../lib/access-tokens/create-board-token";
import { sessionPrincipal } from "../../lib/auth/session-principal";
import { users, type Asset, type Board, type User, type Workspace } from "../../lib/db/schema";
import { addMembership } from "../../lib/members/add-member";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { insertAsset, newBoard, newWorkspace } from "../helpers/factories";
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

    expect((await setRole("viewer")).body).toEqual({ data: { user_id: member.id, role: "viewer", revoked: { api_tokens: 0, invitations: 0, webhook_triggers: 0 } } });
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
    expect((await remove()).body).toEqual({ data: { user_id: member.id, revoked: { api_tokens: 0, invitations: 0, webhook_triggers: 0 } } });
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

/**
 * The board access tokens a page mints for the person signed in (the player, downloads: the pages
 * call createBoardToken with `forUser`, as here) live up to an hour. They end with the person's
 * right to read the workspace, not an hour later; tokens minted through /v1 by an API token carry
 * no person and are untouched.
 */
describe("board access tokens a page minted for a member", () => {
  let space: Workspace;
  let board: Board;
  let asset: Asset;
  let person: User;
  let personSession: Record<string, string>;

  beforeAll(async () => {
    space = await newWorkspace(deps.db);
    board = await newBoard(deps.db, space);
    asset = await insertAsset(deps.db, space, { size: 4, boardIds: [board.id] });
    await deps.store[space.storageKind].write(asset.storageKey, Buffer.from("png!"), "image/png");
    person = await newUser(deps.db);
    await addMembership(deps.db, { workspace: space, userId: person.id, role: "editor", now: deps.clock() });
    await addMembership(deps.db, { workspace: space, userId: (await newUser(deps.db)).id, role: "admin", now: deps.clock() });
    personSession = await sessionHeaders(deps.db, person);
  });

  const pageToken = async (userId: number) => (await createBoardToken(deps, { workspace: space, boardToken: board.token, expiresIn: 3600, forUser: userId })).access_token;
  const apiToken = async () => (await createBoardToken(deps, { workspace: space, boardToken: board.token, expiresIn: 3600 })).access_token;
  const getBoard = (token: string) => call(boardRoute.GET, { path: `/v1/${space.slug}/boards/${board.token}`, token, params: { slug: space.slug, boardToken: board.token } });
  const media = async (token: string) => {
    const url = new URL(`http://easel.test/media/${asset.token}/original?token=${encodeURIComponent(token)}`);
    return (await mediaRoute.GET(new Request(url), { params: Promise.resolve({ path: [asset.token, "original"] }) })).status;
  };
  const adminOf = async () => sessionHeaders(deps.db, await newUser(deps.db, { owner: true }));
  const roleOf = async (role: string) => {
    const res = await call(memberRoute.PATCH, { method: "PATCH", path: `/api/admin/workspaces/${space.slug}/members/${person.id}`, headers: await adminOf(), params: { slug: space.slug, userId: String(person.id) }, json: { member: { role } } });
    expect(res.status).toBe(200);
  };

  it("keeps read access for a member demoted to viewer, and ends it at removal (401 on /v1 and media links)", async () => {
    const token = await pageToken(person.id);
    const minted = await apiToken();
    expect((await getBoard(token)).status).toBe(200);
    expect(await media(token)).toBe(200);

    await roleOf("viewer");
    expect((await getBoard(token)).status).toBe(200);
    expect(await media(token)).toBe(200);

    const removed = await call(memberRoute.DELETE, { method: "DELETE", path: `/api/admin/workspaces/${space.slug}/members/${person.id}`, headers: await adminOf(), params: { slug: space.slug, userId: String(person.id) } });
    expect(removed.status).toBe(200);
    const refused = await getBoard(token);
    expectError(refused, 401, "unauthenticated");
    expect(refused.body.errors[0].message).toBe("The board access token was revoked");
    expect(await media(token)).toBe(401);
    // The session that minted it reads as a workspace it is not in.
    expectError(await call(boardsRoute.GET, { path: `/v1/${space.slug}/boards`, headers: personSession, params: { slug: space.slug } }), 404, "workspace_not_found");

    // A token minted by an API token carries no person and keeps working.
    expect((await getBoard(minted)).status).toBe(200);
    expect(await media(minted)).toBe(200);

    // Joining again makes the same token good again: it follows the membership, not a list of revocations.
    await addMembership(deps.db, { workspace: space, userId: person.id, role: "viewer", now: deps.clock() });
    expect((await getBoard(token)).status).toBe(200);
  });

  it("ends an owner's page tokens when the user is deleted, and keeps them while they exist", async () => {
    const owner = await newUser(deps.db, { owner: true });
    const token = await pageToken(owner.id);
    expect((await getBoard(token)).status).toBe(200);
    await deps.db.delete(users).where(eq(users.id, owner.id));
    expectError(await getBoard(token), 401, "unauthenticated");
    expect(await media(token)).toBe(401);
  });
});
