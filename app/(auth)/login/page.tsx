import type { Metadata } from "next";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm space-y-6 rounded-lg border border-neutral-200 bg-white p-6 shadow-sm">
        <div>
          <h1 className="text-2xl font-semibold">Sign in to Easel</h1>
          <p className="mt-1 text-sm text-neutral-600">
            Accounts are made on the server with <code className="rounded bg-neutral-100 px-1">npm run easel -- admin create</code>, or by an invitation link from a workspace admin.
          </p>
        </div>
        <LoginForm next={next ?? "/boards"} />
      </div>
    </main>
  );
}
