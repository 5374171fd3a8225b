import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and WASM packages are loaded from node_modules at run time, never bundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "@electric-sql/pglite-socket",
    "postgres",
    "sharp",
    "@ffmpeg-installer/ffmpeg",
    "@ffprobe-installer/ffprobe",
    "@google-cloud/storage",
  ],
  poweredByHeader: false,
  // S3 clients address buckets as "/bucket/" (CreateBucket, ListObjects): the embedded store must
  // receive those paths as sent, not a 308 to the slash-less path that S3 clients cannot follow.
  skipTrailingSlashRedirect: true,
  // The build type-checks the app only; `npm run typecheck` (and CI) checks tests, e2e and benches too.
  typescript: { tsconfigPath: "tsconfig.build.json" },
  typedRoutes: false,
};

export default nextConfig;
