import { z } from "zod";
import { PLANS, SCOPES, STORAGE_KINDS, WORKSPACE_ROLES } from "@/lib/db/schema";
import { BOUNDS } from "@/lib/http/bounds";

export const CreateWorkspaceBody = z.object({
  workspace: z.object({
    slug: z.string().min(1).max(BOUNDS.slug),
    name: z.string().trim().min(1).max(BOUNDS.workspaceName).optional(),
    plan: z.enum(PLANS).optional(),
    trial_of: z.enum(PLANS).optional(),
    storage_kind: z.enum(STORAGE_KINDS).optional(),
  }),
});

export const UpdateWorkspaceBody = z.object({
  workspace: z
    .object({ plan: z.enum(PLANS).optional(), trial_of: z.enum(PLANS).nullable().optional(), streaming_enabled: z.boolean().optional() })
    .refine((w) => Object.keys(w).length > 0, "give at least one of plan, trial_of, streaming_enabled"),
});

export const CreateTokenBody = z.object({
  token: z.object({
    name: z.string().trim().min(1, "must not be empty").max(BOUNDS.tokenName),
    // Each scope once at most: a longer list can only repeat one.
    scopes: z.array(z.enum(SCOPES)).min(1, "choose at least one scope").max(SCOPES.length, `at most ${SCOPES.length} scopes, each once`),
    webhooks: z.boolean().default(false),
  }),
});

export const InviteBody = z.object({
  invitation: z.object({ email: z.string().trim().min(3).max(BOUNDS.email), role: z.enum(WORKSPACE_ROLES) }),
});

export const ChangeRoleBody = z.object({ member: z.object({ role: z.enum(WORKSPACE_ROLES) }) });

/** A positive integer id from the path (user or invitation). */
export const PathId = z.coerce.number().int().positive().max(2147483647);
