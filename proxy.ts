import { NextResponse, type NextRequest } from "next/server";
import { toErrorResponse } from "@/lib/http/envelope";
import { jsonNestsDeeperThan } from "@/lib/http/json-depth";
import { contentOrigins, newNonce, pageSecurityHeaders, servedOverHttps } from "@/lib/http/page-security-headers";
import { tooDeepError } from "@/lib/http/parse";

/**
 * Every page response gets Easel's page security headers (lib/http/page-security-headers.ts) with
 * a fresh CSP nonce. The policy also goes onto the request Next.js renders from: Next.js reads
 * the nonce there and stamps it on its own scripts, which is why pages render per request
 * (app/layout.tsx). The API (/v1, /api, /mcp) gets its headers from next.config.ts instead, and
 * stored bytes (/media, /storage) from the code that serves them.
 */
export async function proxy(request: NextRequest) {
  // A Server Function call (the sign-in form) posts its arguments in React's JSON encoding, which
  // Next.js parses recursively: 100,000 levels answered a 500 RangeError. Deeper than 64 levels is
  // refused first, like any JSON body (contract §12). The proxy reads a copy; Next.js keeps the body.
  if (request.method === "POST" && request.headers.has("next-action") && jsonNestsDeeperThan(await request.clone().text())) {
    return toErrorResponse(tooDeepError());
  }
  const headers = pageSecurityHeaders({
    nonce: newNonce(),
    https: servedOverHttps(request),
    development: process.env.NODE_ENV === "development",
    contentOrigins: contentOrigins(),
  });
  const forwarded = new Headers(request.headers);
  forwarded.set("content-security-policy", headers["Content-Security-Policy"]);
  const response = NextResponse.next({ request: { headers: forwarded } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Pages only: not the API, stored bytes, or Next.js's static files.
  matcher: ["/((?!v1|api/|mcp|media/|storage/|_next/static|_next/image|favicon\\.ico).*)"],
};
