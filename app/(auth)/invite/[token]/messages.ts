import type { AcceptRefusal } from "@/lib/members/accept-invitation";

/** What the invite page says for each reason an invitation cannot be accepted. */
export const REFUSAL_MESSAGE: Record<AcceptRefusal, string> = {
  unknown: "This invitation link is not valid. Check that you copied all of it, or ask for a new one.",
  expired: "This invitation has expired (links last 7 days). Ask a workspace admin for a new one.",
  revoked: "This invitation was withdrawn by a workspace admin. Ask for a new one if you still need access.",
  used: "This invitation has already been used. Sign in instead, or ask for a new one.",
  account_exists: "An account with this email exists already: sign in to accept the invitation.",
  wrong_account: "You are signed in with another email than the one invited: sign out, then sign in as the invited email.",
};

export const TOO_MANY_ATTEMPTS = "Too many invalid links or sign-ins from your address. Wait 15 minutes and try again.";
