import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * The key backups are signed with (an HMAC over the archive's digest, format.ts). It lives in the
 * data dir, beside pg/ and objects/ but never inside an archive: an archive carrying its own key
 * would prove nothing. It is made by the first backup and never changes. Losing the machine loses
 * this copy, so the operator keeps another one apart from the archives (docs/operations.md); a
 * restore reads it with `--key-file`.
 */
export const BACKUP_KEY_FILE = "backup.key";

/** A key as read from its file: its bytes and the short id archives name it by. */
export type BackupKey = { secret: Buffer; id: string };

const KEY_BYTES = 32;

export class BackupKeyError extends Error {}

/** The data dir's key, made (owner-only) when there is none yet. */
export async function dataDirBackupKey(dataDir: string): Promise<BackupKey> {
  const file = path.join(dataDir, BACKUP_KEY_FILE);
  const fresh = `${crypto.randomBytes(KEY_BYTES).toString("base64url")}\n`;
  try {
    await fs.writeFile(file, fresh, { flag: "wx", mode: 0o600 });
  } catch (err) {
    // Made by an earlier backup (or by the server and the CLI at once: the first one stands).
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return readBackupKey(file);
}

/** A key file the operator kept (`restore --key-file`). */
export async function readBackupKey(file: string): Promise<BackupKey> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new BackupKeyError(`cannot read the backup key ${file}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  return parseBackupKey(text.trim(), file);
}

export function parseBackupKey(text: string, source: string): BackupKey {
  const secret = /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, "base64url") : Buffer.alloc(0);
  if (secret.length < KEY_BYTES) throw new BackupKeyError(`${source} is not an Easel backup key (one line of base64url, ${KEY_BYTES} bytes or more)`);
  return { secret, id: crypto.createHmac("sha256", secret).update("easel-backup key id").digest("hex").slice(0, 16) };
}

/** The key file's text, to write into a restored data dir so its next backups carry the same key. */
export const backupKeyText = (key: BackupKey) => `${key.secret.toString("base64url")}\n`;

export function signTrailer(key: BackupKey, signed: string): string {
  return crypto.createHmac("sha256", key.secret).update(signed).digest("hex");
}

export function signatureHolds(key: BackupKey, signed: string, signature: unknown): boolean {
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return false;
  return crypto.timingSafeEqual(Buffer.from(signTrailer(key, signed), "hex"), Buffer.from(signature, "hex"));
}
