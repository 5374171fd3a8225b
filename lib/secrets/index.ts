import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "../db";
import { settings } from "../db/schema";

export type SecretName = "board_token_key" | "signed_storage_id_key" | "object_store_secret_key" | "object_store_access_key" | "object_store_gcs_private_key" | "jobs_signing_key" | "auth_secret" | "media_url_key";

const cache = ((globalThis as { __easelSecrets?: Map<string, string> }).__easelSecrets ??= new Map());

/**
 * A named secret of this instance: generated once, stored in the settings table, cached per
 * process. Concurrent first calls on several nodes agree because the insert keeps the first value.
 * `generate` makes the first value when a secret needs a particular form (an access key id, a PEM key).
 */
export async function getSecret(db: Db, name: SecretName, generate: () => string = () => crypto.randomBytes(32).toString("base64url")): Promise<string> {
  const hit = cache.get(name);
  if (hit) return hit;
  const fresh = generate();
  await db.insert(settings).values({ key: name, value: fresh, createdAt: new Date() }).onConflictDoNothing();
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, name));
  if (!row) throw new Error(`secret ${name} could not be stored`);
  cache.set(name, row.value);
  return row.value;
}
