import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and WASM packages are loaded from node_modules at run time, never bundled. So is
  // drizzle-orm: Next.js gives each route bundle a module graph of its own, but the database handle
  // is opened once per process (lib/db/index.ts), so a bundled copy per route would mean that
  // every route but the first maps rows with classes of another copy, where drizzle's `is()`
  // misses its `instanceof` fast path and walks prototype chains for every column of every row.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "drizzle-orm",
    "postgres",
    "sharp",
    "@ffmpeg-installer/ffmpeg",
    "@ffprobe-installer/ffprobe",
    "@google-cloud/storage",
    "pino",
    "pino-pretty",
    "prom-client",
  ],
  poweredByHeader: false,
  // The API answers JSON only: nothing there is to be sniffed, rendered with scripts, framed, or
  // given a referrer. Pages get theirs from proxy.ts; stored bytes (/media, /storage) from the code
  // that serves them.
  async headers() {
    const api = [
      { key: "X-Content-Type-Options", value: "nosniff" },
      { key: "Referrer-Policy", value: "no-referrer" },
      { key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" },
    ];
    return ["/v1/:path*", "/api/:path*", "/mcp"].map((source) => ({ source, headers: api }));
  },
  // S3 clients address buckets as "/bucket/" (CreateBucket, ListObjects): the embedded store must
  // receive those paths as sent, not a 308 to the slash-less path that S3 clients cannot follow.
  skipTrailingSlashRedirect: true,
  // The build type-checks the app only; `npm run typecheck` (and CI) checks tests, e2e and benches too.
  typescript: { tsconfigPath: "tsconfig.build.json" },
  typedRoutes: false,
};

export default nextConfig;
