import { sql, type SQL } from "drizzle-orm";
import type { Principal } from "../auth/principal";

/**
 * Whose authority a trigger carries (triggers.created_by): the signed-in admin, or the person who
 * made the API token used, each read in the statement that writes it (a person deleted meanwhile
 * leaves null, as the foreign key's `on delete set null` would). It stops delivering when that
 * person loses the admin role in its workspace (lib/members/access-made-by.ts).
 */
export function makerOf(principal: Principal): SQL | null {
  if (principal.kind === "session") return sql`(select id from users where id = ${principal.userId})`;
  if (principal.kind === "api") return sql`(select created_by from api_tokens where id = ${principal.tokenId})`;
  return null;
}
