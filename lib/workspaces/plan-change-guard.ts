import type { Workspace } from "../db/schema";
import { DomainError } from "../errors";

/**
 * Plan and trial grant what the deployment pays for (unlimited revert windows, encodes on upload),
 * so they are the owners' to set, like `workspace update` on the server; a workspace admin may
 * resend the current values (the settings form does) but not change them.
 */
export function refusePlanChangeUnlessOwner(isOwner: boolean, change: { plan?: string; trial_of?: string | null }, ws: Workspace): void {
  const changesPlan = (change.plan !== undefined && change.plan !== ws.plan) || (change.trial_of !== undefined && change.trial_of !== ws.trialOf);
  if (!isOwner && changesPlan) throw new DomainError("insufficient_scope", "Only an owner may change the plan or trial of a workspace", { required_scope: "owner" });
}
