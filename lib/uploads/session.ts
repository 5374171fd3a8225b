import crypto from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import type { DbOrTx, Tx } from "../db";
import { uploadSessions, workspaces, type StorageKind, type UploadSession, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../errors";
import { getSecret } from "../secrets";
import { SIGNED_ID_TTL_MS, signStorageId, verifyStorageId } from "./signed-storage-id";

/*
 * The upload session's lifecycle, and the only module that writes `upload_sessions`
 * (lib/uploads/session-owner.test.ts keeps it so). Every other module moves a session through
 * these functions:
 *
 *   open ──▶ pending ──claim (asset | version)──▶ completed
 *                    └─expire (24 h unused)─────▶ expired
 *
 * A session leaves `pending` once: each transition is an update guarded by `status = 'pending'`,
 * so of two racing callers exactly one sees its row change. Rows go away only with their
 * workspace (the foreign key's cascade).
 */

/** Where a new session's bytes go and how long it lives, fixed before storage is asked for anything. */
export type SessionSlot = { handle: string; storageKey: string; createdAt: Date; expiresAt: Date };

/** What the client declared about its bytes (prepare) or what the server knows of bytes it stored itself (ingest). */
export type SessionUpload = {
  title: string | null;
  mediaType: string;
  size: number;
  md5: string | null;
  collectionToken: string | null;
  multipartUploadId: string | null;
};

/** How completed bytes were used: a new asset, or a version of an existing one. */
export type SessionUse = { as: "asset" } | { as: "version"; assetId: number };

/** Storage key of an upload's bytes: per workspace, unguessable, never reused. */
export const originalKey = (workspaceId: number, handle: string) => `ws/${workspaceId}/originals/${handle}`;

const invalidId = () => new DomainError("invalid_signed_storage_id", "The signed_storage_id is not valid for this workspace (tampered, expired or unknown)");

/** A fresh handle and its storage key, valid for the signed id's 24 h from `now`. Writes nothing. */
export function newSessionSlot(workspaceId: number, now: Date): SessionSlot {
  const handle = crypto.randomBytes(16).toString("base64url");
  return { handle, storageKey: originalKey(workspaceId, handle), createdAt: now, expiresAt: new Date(now.getTime() + SIGNED_ID_TTL_MS) };
}

/** Records a pending session in `slot` and returns the signed_storage_id that names it. */
export async function openSession(deps: Deps, workspace: Workspace, slot: SessionSlot, upload: SessionUpload): Promise<string> {
  await deps.db.insert(uploadSessions).values({
    workspaceId: workspace.id,
    handle: slot.handle,
    storageKey: slot.storageKey,
    storageKind: workspace.storageKind,
    status: "pending",
    ...upload,
    createdAt: slot.createdAt,
    expiresAt: slot.expiresAt,
  });
  const secret = await getSecret(deps.db, "signed_storage_id_key");
  return signStorageId(secret, { workspaceId: workspace.id, handle: slot.handle, expiresAt: slot.expiresAt });
}

/** The session a signed_storage_id names, if the id is genuine, unexpired and this workspace's; else `invalid_signed_storage_id`. */
export async function loadSession(deps: Deps, workspace: Workspace, signedStorageId: string): Promise<UploadSession> {
  const secret = await getSecret(deps.db, "signed_storage_id_key");
  const check = verifyStorageId(secret, signedStorageId, workspace.id, deps.clock());
  if (!check.ok) throw invalidId();
  const [session] = await deps.db
    .select()
    .from(uploadSessions)
    .where(and(eq(uploadSessions.handle, check.claims.handle), eq(uploadSessions.workspaceId, workspace.id)))
    .limit(1);
  if (!session) throw invalidId();
  return session;
}

/** The session as it is now (after a lost claim, the winner's result). */
export async function reloadSession(db: DbOrTx, sessionId: number): Promise<UploadSession | undefined> {
  const [session] = await db.select().from(uploadSessions).where(eq(uploadSessions.id, sessionId));
  return session;
}

/**
 * pending → completed, inside the transaction that uses the bytes, so a rolled-back use leaves the
 * session pending. True for the one caller whose update found it pending; every other caller,
 * concurrent or retried, gets false and reads what the winner did.
 */
export async function claimSession(tx: Tx, sessionId: number, use: SessionUse, now: Date): Promise<boolean> {
  const consumed = use.as === "asset" ? { consumedAs: "asset" as const } : { consumedAs: "version" as const, assetId: use.assetId };
  const claimed = await tx
    .update(uploadSessions)
    .set({ status: "completed", completedAt: now, ...consumed })
    .where(and(eq(uploadSessions.id, sessionId), eq(uploadSessions.status, "pending")))
    .returning({ id: uploadSessions.id });
  return claimed.length > 0;
}

/** Names the asset a claimed session created; upload_complete claims before it inserts the asset, so the id comes after. */
export async function recordSessionAsset(tx: Tx, sessionId: number, assetId: number): Promise<void> {
  await tx.update(uploadSessions).set({ assetId }).where(eq(uploadSessions.id, sessionId));
}

/** Pending sessions past their expiry, with their workspace's storage kind (whose bytes to delete). */
export async function listExpiredSessions(db: DbOrTx, now: Date, limit: number): Promise<{ session: UploadSession; storageKind: StorageKind }[]> {
  return db
    .select({ session: uploadSessions, storageKind: workspaces.storageKind })
    .from(uploadSessions)
    .innerJoin(workspaces, eq(workspaces.id, uploadSessions.workspaceId))
    .where(and(eq(uploadSessions.status, "pending"), lt(uploadSessions.expiresAt, now)))
    .limit(limit);
}

/** pending → expired. False when the session was completed meanwhile: it keeps its bytes. */
export async function expireSession(db: DbOrTx, sessionId: number): Promise<boolean> {
  const updated = await db
    .update(uploadSessions)
    .set({ status: "expired" })
    .where(and(eq(uploadSessions.id, sessionId), eq(uploadSessions.status, "pending")))
    .returning({ id: uploadSessions.id });
  return updated.length > 0;
}
