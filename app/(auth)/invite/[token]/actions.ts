"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { AuthError } from "next-auth";
import { signIn } from "@/lib/auth/session";
import { sessionPrincipal } from "@/lib/auth/session-principal";
import { getDeps } from "@/lib/deps";
import { DomainError } from "@/lib/errors";
import { clientAddress } from "@/lib/http/client-address";
import { acceptInvitationAsUser, acceptInvitationWithPassword, type AcceptRefusal } from "@/lib/members/accept-invitation";
import { findInvitation } from "@/lib/members/find-invitation";
import { throttledInvitationLookup } from "@/lib/members/invite-throttle";
import { REFUSAL_MESSAGE, TOO_MANY_ATTEMPTS } from "./messages";

export type JoinState = { error: string | null };

async function currentRequest(): Promise<Request> {
  return new Request("http://localhost/", { headers: await headers() });
}

/** The invitation must still be acceptable, looked up under the same throttle as opening the link. */
async function pendingInvitation(token: string): Promise<string | null> {
  const deps = await getDeps();
  const now = deps.clock();
  const looked = await throttledInvitationLookup(deps.db, clientAddress(await currentRequest()), now, () => findInvitation(deps.db, token, now));
  if (!looked) return TOO_MANY_ATTEMPTS;
  if (!looked.found) return REFUSAL_MESSAGE.unknown;
  return looked.found.state === "pending" ? null : REFUSAL_MESSAGE[looked.found.state];
}

/** A new account: set the password, join, then sign in and land on the workspace. */
export async function joinWithPassword(_prev: JoinState, form: FormData): Promise<JoinState> {
  const token = String(form.get("token") ?? "");
  const password = String(form.get("password") ?? "");
  if (password !== String(form.get("confirm") ?? "")) return { error: "The two passwords differ." };
  const refused = await pendingInvitation(token);
  if (refused) return { error: refused };
  const deps = await getDeps();
  let result;
  try {
    result = await acceptInvitationWithPassword(deps.db, { token, password, now: deps.clock() });
  } catch (err) {
    if (err instanceof DomainError && err.code === "validation_failed") return { error: err.message.replace(/^the password/, "The password") };
    throw err;
  }
  if (!result.ok) return { error: messageOf(result.reason) };
  try {
    await signIn("credentials", { email: result.email, password, redirectTo: `/w/${result.workspaceSlug}/boards` });
  } catch (err) {
    // signIn redirects by throwing; only Auth.js's own errors mean the sign-in failed (the membership stands).
    if (err instanceof AuthError) return { error: "You have joined. Sign in with your email and the new password." };
    throw err;
  }
  return { error: null };
}

/** An existing account, signed in as the invited email: join without touching the password. */
export async function joinAsSignedIn(_prev: JoinState, form: FormData): Promise<JoinState> {
  const token = String(form.get("token") ?? "");
  const refused = await pendingInvitation(token);
  if (refused) return { error: refused };
  const deps = await getDeps();
  const principal = await sessionPrincipal(await currentRequest(), deps);
  if (!principal) return { error: "Sign in first." };
  const result = await acceptInvitationAsUser(deps.db, { token, user: { id: principal.userId, email: principal.email }, now: deps.clock() });
  if (!result.ok) return { error: messageOf(result.reason) };
  redirect(`/w/${result.workspaceSlug}/boards`);
}

function messageOf(reason: AcceptRefusal): string {
  return REFUSAL_MESSAGE[reason];
}
