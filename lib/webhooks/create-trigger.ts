import type { Principal } from "../auth/principal";
import { requireAccess } from "../auth/roles";
import { findBoard } from "../boards/queries";
import { triggers, type Hook } from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { newToken } from "../tokens";
import { workspaceForPrincipal } from "../workspaces/get-workspace";
import { assertHookUrl, checkHookUrlSyntax } from "./check-hook-url";
import { makerOf } from "./maker";
import { TRIGGER_LIFETIME_MS } from "./policy";
import { toCreatedTriggerJson, type CreatedTriggerJson } from "./present";
import { newSigningSecret } from "./sign";

export type CreateTriggerInput = { hook: Hook; hookUrl: string; organizationSlug: string; collectionToken: string };

/** Registers a hook on a board (and its sub-boards) for 90 days; the answer is the only time the secret is shown. */
export async function createTrigger(deps: Deps, principal: Principal, input: CreateTriggerInput): Promise<CreatedTriggerJson> {
  // The URL's own checks first: they need neither the database nor DNS.
  checkHookUrlSyntax(input.hookUrl);
  const workspace = await workspaceForPrincipal(deps.db, input.organizationSlug, principal);
  if (principal.kind === "session") requireAccess(principal, workspace.id, "manage");
  const board = await findBoard(deps.db, workspace.id, input.collectionToken);
  if (!board) throw notFound("board_not_found", "Board");
  await assertHookUrl(input.hookUrl);

  const now = deps.clock();
  const [trigger] = await deps.db
    .insert(triggers)
    .values({
      id: `trg_${newToken(24)}`,
      workspaceId: workspace.id,
      boardId: board.board.id,
      hook: input.hook,
      hookUrl: input.hookUrl,
      secret: newSigningSecret(),
      createdByTokenId: principal.kind === "api" ? principal.tokenId : null,
      // Whose authority it carries: it stops when they lose the admin role here (contract §11a).
      createdBy: makerOf(principal),
      expirationDate: new Date(now.getTime() + TRIGGER_LIFETIME_MS),
      createdAt: now,
    })
    .returning();
  return toCreatedTriggerJson({ trigger, organizationSlug: workspace.slug, collectionToken: board.board.token });
}
