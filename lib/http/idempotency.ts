import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "../db";
import { idempotencyKeys } from "../db/schema";
import { DomainError } from "../errors";

const TTL_MS = 24 * 3600 * 1000;

export type Replay = { status: number; body: unknown };

export function requestHash(method: string, path: string, body: string): string {
  return crypto.createHash("sha256").update(`${method} ${path}\n${body}`).digest("hex");
}

/**
 * Claims an Idempotency-Key for a caller. Returns the stored first response to replay, or null
 * when this request is the first (the caller must then `remember` or `forget` it).
 */
export async function claimKey(db: Db, principal: string, key: string, hash: string, now: Date): Promise<Replay | null> {
  if (key.length > 255) throw new DomainError("validation_failed", "Idempotency-Key is longer than 255 characters", { field: "Idempotency-Key" });
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ principal, key, requestHash: hash, createdAt: now })
    .onConflictDoNothing()
    .returning({ id: idempotencyKeys.id });
  if (inserted.length) return null;
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.principal, principal), eq(idempotencyKeys.key, key)));
  if (!row) return claimKey(db, principal, key, hash, now);
  if (now.getTime() - row.createdAt.getTime() > TTL_MS) {
    // Expired: the key may be used afresh.
    await db.delete(idempotencyKeys).where(eq(idempotencyKeys.id, row.id));
    return claimKey(db, principal, key, hash, now);
  }
  if (row.requestHash !== hash) {
    throw new DomainError("idempotency_key_reused", "This Idempotency-Key was used with a different request", { field: "Idempotency-Key" });
  }
  if (row.responseStatus === null) {
    throw new DomainError("idempotency_request_in_progress", "A request with this Idempotency-Key is still being processed");
  }
  return { status: row.responseStatus, body: row.responseBody };
}

export async function rememberResponse(db: Db, principal: string, key: string, status: number, body: unknown) {
  await db
    .update(idempotencyKeys)
    .set({ responseStatus: status, responseBody: body as object })
    .where(and(eq(idempotencyKeys.principal, principal), eq(idempotencyKeys.key, key)));
}

/** A failed first attempt (5xx) releases the key so that a retry can do the work. */
export async function forgetKey(db: Db, principal: string, key: string) {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.principal, principal), eq(idempotencyKeys.key, key)));
}
