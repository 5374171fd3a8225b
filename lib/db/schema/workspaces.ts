import { boolean, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./_columns";

export const PLANS = ["free", "pro", "creative", "team", "business", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];
export const STORAGE_KINDS = ["s3", "gcs"] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

export const workspaces = pgTable(
  "workspaces",
  {
    id: id(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    plan: text("plan").$type<Plan>().notNull(),
    /** A trial inherits every capability of the paid plan it trials. */
    trialOf: text("trial_of").$type<Plan>(),
    storageKind: text("storage_kind").$type<StorageKind>().notNull(),
    streamingEnabled: boolean("streaming_enabled").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("workspaces_slug_key").on(t.slug)],
);

export type Workspace = typeof workspaces.$inferSelect;
export type NewWorkspace = typeof workspaces.$inferInsert;
