"use client";

import { useActionState } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { Button } from "@/app/_components/ui/button";
import { TextField } from "@/app/_components/ui/field";
import { joinAsSignedIn, joinWithPassword, type JoinState } from "./actions";

export function SetPasswordForm({ token, email }: { token: string; email: string }) {
  const [state, action, pending] = useActionState<JoinState, FormData>(joinWithPassword, { error: null });
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="token" value={token} />
      <TextField label="Email" type="email" value={email} readOnly autoComplete="username" />
      <TextField label="Password" name="password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." />
      <TextField label="Password again" name="confirm" type="password" autoComplete="new-password" required minLength={8} />
      {state.error ? <Alert>{state.error}</Alert> : null}
      <Button type="submit" variant="primary" className="w-full" disabled={pending}>
        {pending ? "Joining…" : "Set password and join"}
      </Button>
    </form>
  );
}

export function JoinForm({ token }: { token: string }) {
  const [state, action, pending] = useActionState<JoinState, FormData>(joinAsSignedIn, { error: null });
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="token" value={token} />
      {state.error ? <Alert>{state.error}</Alert> : null}
      <Button type="submit" variant="primary" className="w-full" disabled={pending}>
        {pending ? "Joining…" : "Join the workspace"}
      </Button>
    </form>
  );
}
