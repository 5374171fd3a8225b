import { users } from "../db/schema";
import type { CreatorJson } from "../openapi/schemas/members";

/**
 * Who made an API token or an invitation, as their lists show it: null when nobody is recorded
 * (made by the CLI, or before Easel recorded it), which the UI shows as "unknown".
 */
export type { CreatorJson };

/** The columns to left-join from `users` on a `created_by` column. */
export const creatorColumns = { creatorId: users.id, creatorEmail: users.email };

export function toCreatorJson(row: { creatorId: number | null; creatorEmail: string | null }): CreatorJson {
  return row.creatorId !== null && row.creatorEmail !== null ? { user_id: row.creatorId, email: row.creatorEmail } : null;
}
