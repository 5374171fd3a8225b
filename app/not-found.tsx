import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not found" };

/**
 * Every 404 of the app: an unknown path, and a page the person may not open (notFound()). Easel's
 * own page rather than the framework's, whose inline <style> carries no nonce and is refused by
 * the pages' Content-Security-Policy.
 */
export default function NotFound() {
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm space-y-4 rounded-lg border border-neutral-200 bg-white p-6 text-center shadow-sm">
        <h1 className="text-2xl font-semibold">Page not found</h1>
        <p className="text-sm text-neutral-600">There is no page at this address, or it is not one you may open.</p>
        <p>
          <Link href="/boards" className="text-sm text-indigo-700 underline">
            Go to your boards
          </Link>
        </p>
      </div>
    </main>
  );
}
