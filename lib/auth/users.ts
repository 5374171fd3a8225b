import { and, eq } from "drizzle-orm";
import type { Db } from "../db";
import { users, type User } from "../db/schema";
import { DomainError } from "../errors";
import { hashPassword } from "./passwords";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Emails are compared trimmed and lower-cased, at creation and at sign-in alike. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Creates a web UI admin, or sets a new password when the email exists (one statement either way). */
export async function createAdminUser(db: Db, input: { email: string; password: string; now: Date }): Promise<User> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email)) throw new DomainError("validation_failed", `"${input.email}" is not an email address`, { field: "email" });
  if (input.password.length < 8) throw new DomainError("validation_failed", "the password must have at least 8 characters", { field: "password" });
  const passwordHash = await hashPassword(input.password);
  const [row] = await db
    .insert(users)
    .values({ email, passwordHash, role: "admin", createdAt: input.now })
    .onConflictDoUpdate({ target: users.email, set: { passwordHash } })
    .returning();
  return row;
}

export async function findUserByEmail(db: Db, email: string): Promise<User | null> {
  const [row] = await db.select().from(users).where(eq(users.email, normalizeEmail(email))).limit(1);
  return row ?? null;
}

/**
 * Stores a new hash of the password a user just signed in with, unless the hash changed
 * meanwhile (an admin set a new password): that newer password wins.
 */
export async function replacePasswordHash(db: Db, user: Pick<User, "id" | "passwordHash">, passwordHash: string): Promise<void> {
  await db.update(users).set({ passwordHash }).where(and(eq(users.id, user.id), eq(users.passwordHash, user.passwordHash)));
}
