import type { Plan, Workspace } from "../db/schema";

/** The plan whose capabilities apply: a trial inherits every capability of the plan it trials. */
export const effectivePlan = (ws: Pick<Workspace, "plan" | "trialOf">): Plan => ws.trialOf ?? ws.plan;

export const versioningAllowed = (ws: Pick<Workspace, "plan" | "trialOf">) => effectivePlan(ws) !== "creative";

/** Days a version stays revertable, or null for unlimited. Free and Pro (and their trials): 7. */
export function revertWindowDays(ws: Pick<Workspace, "plan" | "trialOf">): number | null {
  const plan = effectivePlan(ws);
  return plan === "free" || plan === "pro" ? 7 : null;
}

/** A gated plan has a finite revert window. */
export const isGatedPlan = (ws: Pick<Workspace, "plan" | "trialOf">) => revertWindowDays(ws) !== null;

/** Whether `createdAt` is inside the workspace's revert window at `now`. */
export function isRevertable(ws: Pick<Workspace, "plan" | "trialOf">, createdAt: Date, now: Date): boolean {
  if (!versioningAllowed(ws)) return false;
  const days = revertWindowDays(ws);
  return days === null || now.getTime() - createdAt.getTime() <= days * 86_400_000;
}

/** Team, Business and Enterprise encode video on upload; the others when the asset is first read. */
export const encodesOnUpload = (ws: Pick<Workspace, "plan" | "trialOf">) => ["team", "business", "enterprise"].includes(effectivePlan(ws));
