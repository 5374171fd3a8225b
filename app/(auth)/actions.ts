"use server";

import { AuthError } from "next-auth";
import { signIn, signOut } from "@/lib/auth/session";

export type LoginState = { error: string | null };

/** Only paths of this site are followed after sign-in, never another origin (open redirect). */
function safeNext(value: FormDataEntryValue | null): string {
  const next = typeof value === "string" ? value : "";
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/boards";
}

export async function login(_prev: LoginState, form: FormData): Promise<LoginState> {
  try {
    await signIn("credentials", { email: form.get("email"), password: form.get("password"), redirectTo: safeNext(form.get("next")) });
    return { error: null };
  } catch (err) {
    // signIn redirects by throwing; only Auth.js's own errors mean "not signed in".
    if (err instanceof AuthError) return { error: err.type === "CredentialsSignin" ? "Wrong email or password." : "Sign-in failed. Try again." };
    throw err;
  }
}

export async function logout() {
  await signOut({ redirectTo: "/login" });
}
