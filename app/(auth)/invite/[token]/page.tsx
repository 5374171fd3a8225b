import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { sessionPrincipal } from "@/lib/auth/session-principal";
import { getDeps } from "@/lib/deps";
import { clientAddress } from "@/lib/http/client-address";
import { findInvitation } from "@/lib/members/find-invitation";
import { throttledInvitationLookup } from "@/lib/members/invite-throttle";
import { JoinForm, SetPasswordForm } from "./join-forms";
import { REFUSAL_MESSAGE, TOO_MANY_ATTEMPTS } from "./messages";

export const metadata: Metadata = { title: "Invitation" };
export const dynamic = "force-dynamic";

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm space-y-6 rounded-lg border border-neutral-200 bg-white p-6 shadow-sm">
        <h1 className="text-2xl font-semibold">{title}</h1>
        {children}
      </div>
    </main>
  );
}

/**
 * An invitation link (public): shows the workspace and role, then either sets a password for a
 * new account or, for an email that has an account, asks to sign in and join. Used, expired and
 * withdrawn links say so; lookups of unknown links are throttled per client address.
 */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const deps = await getDeps();
  const now = deps.clock();
  const req = new Request("http://localhost/", { headers: await headers() });
  const looked = await throttledInvitationLookup(deps.db, clientAddress(req), now, () => findInvitation(deps.db, token, now));
  if (!looked) return <Card title="Invitation">{<Alert>{TOO_MANY_ATTEMPTS}</Alert>}</Card>;
  const invitation = looked.found;
  if (!invitation) return <Card title="Invitation">{<Alert>{REFUSAL_MESSAGE.unknown}</Alert>}</Card>;
  if (invitation.state !== "pending") return <Card title="Invitation">{<Alert>{REFUSAL_MESSAGE[invitation.state]}</Alert>}</Card>;

  const intro = (
    <p className="text-sm text-neutral-700">
      <strong>{invitation.email}</strong> is invited to <strong>{invitation.workspace.name}</strong> (<span className="font-mono">{invitation.workspace.slug}</span>) as{" "}
      <strong data-testid="invited-role">{invitation.role}</strong>.
    </p>
  );
  if (!invitation.existingUser) {
    return (
      <Card title="Join Easel">
        {intro}
        <SetPasswordForm token={token} email={invitation.email} />
      </Card>
    );
  }
  const signedIn = await sessionPrincipal(req, deps);
  return (
    <Card title="Join the workspace">
      {intro}
      {signedIn?.email === invitation.email ? (
        <JoinForm token={token} />
      ) : (
        <div className="space-y-3 text-sm">
          {signedIn ? <Alert tone="warning">You are signed in as {signedIn.email}. Sign out, then sign in as {invitation.email}.</Alert> : null}
          <p>This email has an account already: sign in with it to accept. Your password stays as it is.</p>
          <Link href={`/login?next=${encodeURIComponent(`/invite/${token}`)}`} className="inline-block rounded-md bg-indigo-600 px-3 py-2 font-medium text-white hover:bg-indigo-700">
            Sign in to accept
          </Link>
        </div>
      )}
    </Card>
  );
}
