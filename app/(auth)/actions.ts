"use server";

import { AuthError } from "next-auth";
import { signIn, signOut } from "@/lib/auth/session";

/** After a refused sign-in the form comes back with the email still filled in (React resets forms after an action). */
export type LoginState = { error: string | null; email: string };

/** Only paths of this site are followed after sign-in, never another origin (open redirect). */
function safeNext(value: FormDataEntryValue | null): string {
  const next = typeof value === "string" ? value : "";
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/boards";
}

export async function login(_prev: LoginState, form: FormData): Promise<LoginState> {
  const email = String(form.get("email") ?? "");
  try {
    await signIn("credentials", { email, password: form.get("password"), redirectTo: safeNext(form.get("next")) });
    return { error: null, email };
  } catch (err) {
    // signIn redirects by throwing; only Auth.js's own errors mean "not signed in".
    if (err instanceof AuthError) return { error: err.type === "CredentialsSignin" ? "Wrong email or password." : "Sign-in failed. Try again.", email };
    throw err;
  }
}

export async function logout() {
  await signOut({ redirectTo: "/login" });
}
