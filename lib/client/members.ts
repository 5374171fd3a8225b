import { queryOptions } from "@tanstack/react-query";
import { describeMade, madeAnything, type MadeCounts } from "../members/describe-made";
import { request } from "./api";
import type { Creator, One } from "./types";

export type MemberRole = "viewer" | "editor" | "admin";
/** Live API tokens, pending invitations and webhook triggers someone made in the workspace. */
export type AccessMade = MadeCounts;
/** `made`: what removing them, or a role below admin, revokes. */
export type Member = { user_id: number; email: string; role: MemberRole; created_at: string; made: AccessMade };
export type Invitation = { id: number; email: string; role: MemberRole; expires_at: string; created_at: string; created_by: Creator };
export type CreatedInvitation = Invitation & { url: string };

export { describeMade, madeAnything };

const base = (slug: string) => `/api/admin/workspaces/${encodeURIComponent(slug)}`;

/** The members page's calls (workspace admins only; the server refuses everyone else). */
export const membersApi = {
  list: (slug: string) => request<{ data: Member[] }>(`${base(slug)}/members`),
  changeRole: (slug: string, userId: number, role: MemberRole) => request<One<{ user_id: number; role: MemberRole; revoked: AccessMade }>>(`${base(slug)}/members/${userId}`, { method: "PATCH", body: { member: { role } } }),
  remove: (slug: string, userId: number) => request<One<{ user_id: number; revoked: AccessMade }>>(`${base(slug)}/members/${userId}`, { method: "DELETE" }),
  invitations: (slug: string) => request<{ data: Invitation[] }>(`${base(slug)}/invitations`),
  invite: (slug: string, invitation: { email: string; role: MemberRole }) => request<One<CreatedInvitation>>(`${base(slug)}/invitations`, { method: "POST", body: { invitation } }),
  revoke: (slug: string, id: number) => request<null>(`${base(slug)}/invitations/${id}`, { method: "DELETE" }),
};

export const memberKeys = { all: (slug: string) => ["members", slug] as const };
export const membersQuery = (slug: string) => queryOptions({ queryKey: [...memberKeys.all(slug), "list"], queryFn: () => membersApi.list(slug) });
export const invitationsQuery = (slug: string) => queryOptions({ queryKey: [...memberKeys.all(slug), "invitations"], queryFn: () => membersApi.invitations(slug) });
