import { eq } from "drizzle-orm";
import type { Db } from "../db";
import { PLANS, STORAGE_KINDS, workspaces, type Plan, type StorageKind, type Workspace } from "../db/schema";
import { DomainError } from "../errors";
import { findWorkspaceBySlug } from "./get-workspace";
import { slugProblem } from "./slug";

const isPlan = (p: string): p is Plan => (PLANS as readonly string[]).includes(p);

function planOrThrow(value: string, field: string): Plan {
  if (!isPlan(value)) throw new DomainError("validation_failed", `unknown plan "${value}" (plans: ${PLANS.join(", ")})`, { field });
  return value;
}

export type CreateWorkspaceInput = { slug: string; name?: string; plan?: string; trialOf?: string; storage?: string; now: Date };

/** One insert: safe to run over the embedded database's socket while a server owns it. */
export async function createWorkspace(db: Db, input: CreateWorkspaceInput): Promise<Workspace> {
  const problem = slugProblem(input.slug);
  if (problem) throw new DomainError("validation_failed", problem, { field: "slug" });
  const plan = planOrThrow(input.plan ?? "free", "plan");
  const trialOf = input.trialOf ? planOrThrow(input.trialOf, "trial_of") : null;
  const storage = input.storage ?? "s3";
  if (!(STORAGE_KINDS as readonly string[]).includes(storage)) {
    throw new DomainError("validation_failed", `unknown storage kind "${storage}" (use s3 or gcs)`, { field: "storage" });
  }
  const [row] = await db
    .insert(workspaces)
    .values({ slug: input.slug, name: input.name ?? input.slug, plan, trialOf, storageKind: storage as StorageKind, createdAt: input.now, updatedAt: input.now })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new DomainError("validation_failed", `a workspace "${input.slug}" already exists`, { field: "slug" });
  return row;
}

export type UpdateWorkspaceInput = { slug: string; plan?: string; trialOf?: string | "none"; streaming?: boolean; now: Date };

export async function updateWorkspace(db: Db, input: UpdateWorkspaceInput): Promise<Workspace> {
  const set: Partial<typeof workspaces.$inferInsert> = { updatedAt: input.now };
  if (input.plan !== undefined) set.plan = planOrThrow(input.plan, "plan");
  if (input.trialOf !== undefined) set.trialOf = input.trialOf === "none" ? null : planOrThrow(input.trialOf, "trial_of");
  if (input.streaming !== undefined) set.streamingEnabled = input.streaming;
  const [row] = await db.update(workspaces).set(set).where(eq(workspaces.slug, input.slug)).returning();
  if (!row) throw new DomainError("workspace_not_found", `no workspace "${input.slug}"`);
  return row;
}

export async function getWorkspaceOrThrow(db: Db, slug: string): Promise<Workspace> {
  const ws = await findWorkspaceBySlug(db, slug);
  if (!ws) throw new DomainError("workspace_not_found", `no workspace "${slug}"`);
  return ws;
}
