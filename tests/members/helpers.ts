import { expect } from "vitest";
import * as tokensRoute from "../../app/api/admin/workspaces/[slug]/tokens/route";
import type { Db } from "../../lib/db";
import type { User, Workspace } from "../../lib/db/schema";
import { addMembership } from "../../lib/members/add-member";
import { call } from "../helpers/call-route";
import { newUser, sessionHeaders } from "../helpers/sessions";

/** A path under the admin routes of one workspace (`/api/admin/workspaces/:slug/…`). */
export const adminPath = (ws: Workspace, rest: string) => `/api/admin/workspaces/${ws.slug}/${rest}`;

/** An API token (read, write, webhooks) issued on the Tokens page by `by`, recorded as theirs. */
export async function issueToken(db: Db, ws: Workspace, by: User, name: string): Promise<string> {
  const res = await call(tokensRoute.POST, { method: "POST", path: adminPath(ws, "tokens"), headers: await sessionHeaders(db, by), params: { slug: ws.slug }, json: { token: { name, scopes: ["read", "write"], webhooks: true } } });
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.created_by).toEqual({ user_id: by.id, email: by.email });
  return res.body.data.token;
}

/** A new person with `role` in the workspace. */
export async function newMember(db: Db, now: Date, ws: Workspace, role: "viewer" | "editor" | "admin", opts: { owner?: boolean } = {}): Promise<User> {
  const user = await newUser(db, opts);
  await addMembership(db, { workspace: ws, userId: user.id, role, now });
  return user;
}
