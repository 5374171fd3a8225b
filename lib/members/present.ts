import type { CreatorJson } from "../auth/creator";
import type { Invitation, WorkspaceRole } from "../db/schema";

export type InvitationJson = { id: number; email: string; role: WorkspaceRole; expires_at: string; created_at: string; created_by: CreatorJson };

export function toInvitationJson(row: Invitation, createdBy: CreatorJson): InvitationJson {
  return { id: row.id, email: row.email, role: row.role, expires_at: row.expiresAt.toISOString(), created_at: row.createdAt.toISOString(), created_by: createdBy };
}
