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
  typedRoutes: false,
};

export default nextConfig;
