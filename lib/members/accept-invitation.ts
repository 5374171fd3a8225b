import { and, eq, gt, isNull } from "drizzle-orm";
import { hashPassword } from "../auth/passwords";
import { checkPassword, insertNewUser, normalizeEmail } from "../auth/users";
import type { Db, Tx } from "../db";
import { invitations, workspaces, type Invitation } from "../db/schema";
import { addMembership } from "./add-member";
import { invitationState, type InvitationState } from "./find-invitation";
import { hashInvitationToken, looksLikeInvitationToken } from "./invitation-token";

export type AcceptRefusal = Exclude<InvitationState, "pending"> | "unknown" | "account_exists" | "wrong_account";
export type AcceptResult = { ok: true; email: string; workspaceSlug: string } | { ok: false; reason: AcceptRefusal };

/** Thrown inside the transaction to roll the consumed invitation back; never leaves this file. */
class Refused extends Error {
  constructor(readonly reason: AcceptRefusal) {
    super(reason);
  }
}

/**
 * Joins with a new account: sets the password (the same rule and hashing as every user) and adds
 * the membership, in one transaction with the invitation's consumption. An email that has an
 * account already is refused ("account_exists": sign in and accept instead); its password is
 * never set from a link.
 */
export async function acceptInvitationWithPassword(db: Db, input: { token: string; password: string; now: Date }): Promise<AcceptResult> {
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password); // before the transaction: it takes ~100 ms off the event loop
  return consume(db, input.token, input.now, async (tx, invitation) => {
    const user = await insertNewUser(tx, { email: invitation.email, passwordHash, now: input.now });
    if (!user) throw new Refused("account_exists");
    return user.id;
  });
}

/** Joins as the signed-in user, whose email must be the invited one; no password is asked or changed. */
export async function acceptInvitationAsUser(db: Db, input: { token: string; user: { id: number; email: string }; now: Date }): Promise<AcceptResult> {
  return consume(db, input.token, input.now, async (_tx, invitation) => {
    if (normalizeEmail(input.user.email) !== invitation.email) throw new Refused("wrong_account");
    return input.user.id;
  });
}

/**
 * Single use, atomically: one conditional UPDATE marks the invitation used only while it is
 * unused, unrevoked and unexpired. Of two acceptances at once the second waits for the first's
 * row lock, then finds `used_at` set and matches nothing; a refusal after the UPDATE rolls it back.
 */
async function consume(db: Db, token: string, now: Date, joiningUser: (tx: Tx, invitation: Invitation) => Promise<number>): Promise<AcceptResult> {
  if (!looksLikeInvitationToken(token)) return { ok: false, reason: "unknown" };
  const tokenHash = hashInvitationToken(token);
  try {
    return await db.transaction(async (tx) => {
      const [invitation] = await tx
        .update(invitations)
        .set({ usedAt: now })
        .where(and(eq(invitations.tokenHash, tokenHash), isNull(invitations.usedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
        .returning();
      if (!invitation) throw new Refused(await whyNot(tx, tokenHash, now));
      const userId = await joiningUser(tx, invitation);
      await addMembership(tx, { workspace: { id: invitation.workspaceId }, userId, role: invitation.role, now });
      const [ws] = await tx.select({ slug: workspaces.slug }).from(workspaces).where(eq(workspaces.id, invitation.workspaceId));
      return { ok: true as const, email: invitation.email, workspaceSlug: ws.slug };
    });
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.reason };
    throw err;
  }
}

async function whyNot(tx: Tx, tokenHash: string, now: Date): Promise<AcceptRefusal> {
  const [row] = await tx.select().from(invitations).where(eq(invitations.tokenHash, tokenHash)).limit(1);
  if (!row) return "unknown";
  const state = invitationState(row, now);
  return state === "pending" ? "used" : state;
}
