import { z } from "zod";
import { SCOPES } from "../../db/schema/api-tokens";
import { WORKSPACE_ROLES } from "../../db/schema/memberships";
import { Timestamp } from "./common";

/**
 * The web UI's own admin routes for API tokens, invitations and members (/api/admin/workspaces/:slug/…).
 * They are not part of the /v1 document; these schemas fix their wire shapes, the presenters'
 * types come from them, and tests/members parses the answers with them.
 */

export const CreatorJson = z
  .strictObject({ user_id: z.number().int(), email: z.string() })
  .nullable()
  .meta({ description: "Who made it. Null for tokens made with `npm run easel -- token create` and for rows older than this record (shown as unknown)." });
export type CreatorJson = z.infer<typeof CreatorJson>;

export const AccessMadeJson = z.strictObject({
  api_tokens: z.number().int().min(0),
  invitations: z.number().int().min(0),
  webhook_triggers: z.number().int().min(0).meta({ description: "Live webhook triggers (not deleted, not already disabled) made signed in or through their API tokens; disabled, not deleted." }),
});
export type AccessMadeJson = z.infer<typeof AccessMadeJson>;

export const ApiTokenJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  webhooks: z.boolean(),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
  created_by: CreatorJson,
});
export type ApiTokenJson = z.infer<typeof ApiTokenJson>;

export const InvitationJson = z.strictObject({
  id: z.number().int(),
  email: z.string(),
  role: z.enum(WORKSPACE_ROLES),
  expires_at: Timestamp,
  created_at: Timestamp,
  created_by: CreatorJson,
});
export type InvitationJson = z.infer<typeof InvitationJson>;

export const MemberJson = z.strictObject({
  user_id: z.number().int(),
  email: z.string(),
  role: z.enum(WORKSPACE_ROLES),
  created_at: Timestamp,
  made: AccessMadeJson.meta({ description: "Live API tokens, pending invitations and webhook triggers they made here: what removing them, or a role below admin, revokes (triggers: disables)." }),
});
export type MemberJson = z.infer<typeof MemberJson>;

/** DELETE …/members/:userId (200) and PATCH …/members/:userId: what the change revoked. */
export const MemberRemovedJson = z.strictObject({ user_id: z.number().int(), revoked: AccessMadeJson });
export const RoleChangedJson = z.strictObject({ user_id: z.number().int(), role: z.enum(WORKSPACE_ROLES), revoked: AccessMadeJson });
