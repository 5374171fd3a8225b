import { openSignInAttempt, signInSubjects } from "../auth/sign-in-throttle";
import type { Db } from "../db";

/**
 * Opening invitation links is throttled like signing in: a link that names no invitation counts
 * as a failed sign-in of the client address (at most 10 in 15 minutes, shared with the sign-in
 * form), so the 256-bit tokens cannot even be sampled at speed. A link that names an invitation,
 * used or not, takes its own count back. Answers null when the address is at the limit.
 */
export async function throttledInvitationLookup<T>(db: Db, clientAddress: string, now: Date, lookup: () => Promise<T | null>): Promise<{ found: T | null } | null> {
  const { address } = signInSubjects("", clientAddress);
  const attempt = await openSignInAttempt(db, { email: `invite:${address}`, address }, now);
  if (!attempt) return null;
  const found = await lookup();
  if (found === null) attempt.failed();
  else await attempt.succeeded();
  return { found };
}
