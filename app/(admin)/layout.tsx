import Link from "next/link";
import type { ReactNode } from "react";
import { logout } from "../(auth)/actions";
import { requireSession } from "./_lib/session";

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const session = await requireSession();
  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow">
        Skip to content
      </a>
      <header className="border-b border-neutral-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <Link href="/boards" className="text-lg font-semibold tracking-tight">
            Easel
          </Link>
          <nav aria-label="Administration" className="flex gap-4 text-sm text-neutral-700">
            <Link href="/workspaces" className="hover:text-indigo-700">
              Workspaces
            </Link>
            {session.owner ? (
              <Link href="/jobs" className="hover:text-indigo-700">
                Job runs
              </Link>
            ) : null}
          </nav>
          <form action={logout} className="ml-auto flex items-center gap-3 text-sm">
            <span className="text-neutral-600" title="Signed in">
              {session.email}
            </span>
            <button type="submit" className="rounded-md px-2 py-1 text-neutral-700 hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-indigo-600">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <div id="main" className="mx-auto max-w-7xl px-4 py-6">
        {children}
      </div>
    </div>
  );
}
