import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import type { Db } from "../db";
import { users, type User } from "../db/schema";
import { DomainError } from "../errors";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Creates a web UI admin, or sets a new password when the email exists (one statement either way). */
export async function createAdminUser(db: Db, input: { email: string; password: string; now: Date }): Promise<User> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new DomainError("validation_failed", `"${input.email}" is not an email address`, { field: "email" });
  if (input.password.length < 8) throw new DomainError("validation_failed", "the password must have at least 8 characters", { field: "password" });
  const passwordHash = await bcrypt.hash(input.password, 10);
  const [row] = await db
    .insert(users)
    .values({ email, passwordHash, role: "admin", createdAt: input.now })
    .onConflictDoUpdate({ target: users.email, set: { passwordHash } })
    .returning();
  return row;
}

export async function verifyUserPassword(db: Db, email: string, password: string): Promise<User | null> {
  const [row] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase())).limit(1);
  if (!row) return null;
  return (await bcrypt.compare(password, row.passwordHash)) ? row : null;
}
