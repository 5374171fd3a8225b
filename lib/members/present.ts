import type { CreatorJson } from "../auth/creator";
import type { Invitation } from "../db/schema";
import type { InvitationJson } from "../openapi/schemas/members";

export type { InvitationJson };

export function toInvitationJson(row: Invitation, createdBy: CreatorJson): InvitationJson {
  return { id: row.id, email: row.email, role: row.role, expires_at: row.expiresAt.toISOString(), created_at: row.createdAt.toISOString(), created_by: createdBy };
}
