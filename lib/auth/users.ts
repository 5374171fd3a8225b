import { and, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "../db";
import { users, type User } from "../db/schema";
import { DomainError } from "../errors";
import { hashPassword } from "./passwords";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Emails are compared trimmed and lower-cased, at creation and at sign-in alike. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export type NewUserInput = { email: string; password: string; now: Date };

/** The email, normalized, or 422 validation_failed naming the field. */
export function checkEmail(input: string): string {
  const email = normalizeEmail(input);
  if (!EMAIL.test(email)) throw new DomainError("validation_failed", `"${input}" is not an email address`, { field: "email" });
  return email;
}

/** The password rule of every web UI user; 422 validation_failed when it is not met. */
export function checkPassword(password: string): void {
  if (password.length < 8) throw new DomainError("validation_failed", "the password must have at least 8 characters", { field: "password" });
}

/**
 * Creates an owner (`admin create`: every workspace, every right), or, when the email exists,
 * sets a new password and makes that user an owner (one statement either way).
 */
export async function createAdminUser(db: Db, input: NewUserInput): Promise<User> {
  return upsertUser(db, input, { owner: true });
}

/**
 * Creates a user who may sign in but acts only in the workspaces they are a member of (`user
 * create`); when the email exists, sets a new password and leaves the owner flag as it is.
 */
export async function createMemberUser(db: DbOrTx, input: NewUserInput): Promise<User> {
  return upsertUser(db, input, { owner: false });
}

async function upsertUser(db: DbOrTx, input: NewUserInput, opts: { owner: boolean }): Promise<User> {
  const email = checkEmail(input.email);
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  const [row] = await db
    .insert(users)
    .values({ email, passwordHash, isOwner: opts.owner, createdAt: input.now })
    .onConflictDoUpdate({ target: users.email, set: opts.owner ? { passwordHash, isOwner: true } : { passwordHash } })
    .returning();
  return row;
}

export async function findUserByEmail(db: DbOrTx, email: string): Promise<User | null> {
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

/**
 * Inserts a new user with a password hashed beforehand (joining by invitation), or answers null
 * when the email is taken: an existing account is never given a password by someone else.
 */
export async function insertNewUser(db: DbOrTx, input: { email: string; passwordHash: string; now: Date }): Promise<User | null> {
  const [row] = await db
    .insert(users)
    .values({ email: normalizeEmail(input.email), passwordHash: input.passwordHash, isOwner: false, createdAt: input.now })
    .onConflictDoNothing({ target: users.email })
    .returning();
  return row ?? null;
}
