import net from "node:net";
import { and, eq, gt, inArray, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db";
import { signInFailures } from "../db/schema";
import { log } from "../log/logger.mjs";

/**
 * The sign-in throttle (contract §12): at most SIGN_IN_MAX_FAILURES failed sign-ins per email and
 * per client address in any SIGN_IN_WINDOW_MS; past that, sign-in is refused without checking the
 * password until the oldest failures leave the window. Failures are rows of `sign_in_failures`,
 * so every node on one database counts the same ones.
 *
 * An attempt is recorded as a failure *before* its password is checked and the record is taken
 * back if the password is right. Counting only after the check would let a burst of simultaneous
 * guesses all pass the count while they wait for the hashing queue; counting first bounds even a
 * burst. Refused attempts leave no row: they did no hashing, and counting them would let an
 * attacker who keeps trying hold a victim's email locked for ever.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_MAX_FAILURES = 10;

/** Rows past the window deleted per attempt: enough to keep up, small enough to cost nothing. */
const PRUNE_BATCH = 100;

export type SignInSubjects = { email: string; address: string };

/**
 * `email:<email>` and `ip:<address>`. An IPv6 client counts by its /64 (`ip:2001:db8:0:1::/64`):
 * one host or home is commonly given a whole /64, so a limit per single IPv6 address would not bind.
 */
export function signInSubjects(normalizedEmail: string, clientAddress: string): SignInSubjects {
  const address = net.isIPv6(clientAddress) ? `${ipv6Groups(clientAddress).slice(0, 4).join(":")}::/64` : clientAddress;
  return { email: `email:${normalizedEmail}`, address: `ip:${address}` };
}

/** The eight 16-bit groups of an IPv6 address, "::" expanded, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const groupsOf = (part: string) => (part ? part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : []);
  const [head, tail] = address.split("::");
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.map((g) => parseInt(g, 16).toString(16));
}

export type SignInAttempt = {
  /**
   * The password was right: this attempt's record is taken back and the email's earlier failures
   * are cleared (only someone holding the password can do that, and the owner should not stay one
   * typo from a lockout). The address keeps its failures: otherwise one person could sign in to
   * their own account between guesses at others' and never reach the limit.
   */
  succeeded(): Promise<void>;
  /** The password was wrong: the record stays; the failure that reaches the limit is logged. */
  failed(): void;
};

/** Opens an attempt, or answers null when either subject is at the limit (refuse without hashing). */
export async function openSignInAttempt(db: Db, subjects: SignInSubjects, now: Date): Promise<SignInAttempt | null> {
  const windowStart = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
  await pruneExpired(db, windowStart);
  const rows = await db
    .insert(signInFailures)
    .values([
      { subject: subjects.email, failedAt: now },
      { subject: subjects.address, failedAt: now },
    ])
    .returning({ id: signInFailures.id, subject: signInFailures.subject });
  const ids = rows.map((r) => r.id);
  const addressRowId = rows.find((r) => r.subject === subjects.address)!.id;

  // Failures before this one (a lower id) and this one: concurrent attempts each see only those
  // that came first, so a burst is cut at the limit rather than refused whole.
  const counts = await db
    .select({ subject: signInFailures.subject, failures: sql<number>`count(*)::int` })
    .from(signInFailures)
    .where(and(inArray(signInFailures.subject, [subjects.email, subjects.address]), gt(signInFailures.failedAt, windowStart), lte(signInFailures.id, Math.max(...ids))))
    .groupBy(signInFailures.subject);
  const worst = Math.max(0, ...counts.map((c) => Number(c.failures)));
  if (worst > SIGN_IN_MAX_FAILURES) {
    await db.delete(signInFailures).where(inArray(signInFailures.id, ids));
    return null;
  }

  return {
    async succeeded() {
      await db.delete(signInFailures).where(or(eq(signInFailures.subject, subjects.email), eq(signInFailures.id, addressRowId)));
    },
    failed() {
      for (const c of counts) {
        if (Number(c.failures) === SIGN_IN_MAX_FAILURES) {
          log().warn(
            { component: "auth", subject: c.subject, failures: SIGN_IN_MAX_FAILURES, window_minutes: SIGN_IN_WINDOW_MS / 60_000 },
            "sign-in failure limit reached; further attempts are refused until the failures age out",
          );
        }
      }
    },
  };
}

/** Deletes a bounded batch of failures older than the window, so the table holds about one window's worth. */
async function pruneExpired(db: Db, windowStart: Date) {
  const expired = db.select({ id: signInFailures.id }).from(signInFailures).where(lte(signInFailures.failedAt, windowStart)).limit(PRUNE_BATCH);
  await db.delete(signInFailures).where(inArray(signInFailures.id, expired));
}
