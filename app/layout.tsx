import type { Metadata } from "next";
import { connection } from "next/server";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = { title: { default: "Easel", template: "%s · Easel" }, description: "Self-hostable asset hosting" };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request: Next.js puts that request's CSP nonce (proxy.ts) on its scripts,
  // and a page prerendered at build time would carry none, so its scripts would be blocked.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-neutral-50 font-sans text-neutral-900 antialiased dark:bg-neutral-950 dark:text-neutral-100">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
