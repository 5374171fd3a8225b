import path from "node:path";
import { z } from "zod";
import { proxyHopsOf } from "./http/forwarded-address.mjs";

const flag = z
  .string()
  .optional()
  .transform((v) => v === "1" || v === "true" || v === "yes");

const positiveInt = <F extends number | undefined>(fallback: F) =>
  z
    .string()
    .optional()
    .transform((v, ctx): number | F => {
      if (v === undefined || v === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) {
        ctx.addIssue({ code: "custom", message: `must be a positive integer, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });

/** A count of proxies, read by the one parser the HTTP server uses too (lib/http/forwarded-address.mjs). */
const proxyHops = z
  .string()
  .optional()
  .transform((v, ctx): number => {
    try {
      return proxyHopsOf(v);
    } catch {
      ctx.addIssue({ code: "custom", message: `must be a number of proxies (0, 1, 2, ...), got "${v}"` });
      return z.NEVER;
    }
  });

/** Every environment variable Easel reads, validated once. docs/configuration.md lists them. */
const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  EASEL_DATA_DIR: z.string().default("./.data"),
  /** "off": the embedded database is migrated without the automatic backup first (docs/upgrading.md). */
  EASEL_UPGRADE_BACKUP: z.enum(["on", "off"]).default("on"),
  EASEL_PUBLIC_URL: z.url().optional(),
  /** A separate origin for user content (e.g. https://media.example.net): every media and storage URL handed out uses it (contract §12, docs/security.md). */
  EASEL_MEDIA_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
  EASEL_RATE_LIMIT_PER_MIN: positiveInt(600),
  EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN: positiveInt(300),
  // How many reverse proxies stand in front of Easel (0: none, X-Forwarded-For is ignored); lib/http/client-address.ts.
  EASEL_TRUST_PROXY: proxyHops,
  // Upload bodies the embedded store reads at once per workspace, and open connections per client
  // address (the latter is read by lib/server/http-server.mjs itself; validated here as well).
  EASEL_MAX_UPLOADS_PER_WORKSPACE: positiveInt(256),
  EASEL_MAX_CONNECTIONS_PER_ADDRESS: positiveInt(256),
  EASEL_WEBHOOK_ALLOW_PRIVATE: flag,
  EASEL_TEST_CLOCK: flag,
  EASEL_WEBHOOK_RETRY_SCHEDULE: z.string().optional(),
  EASEL_MAX_UPLOAD_BYTES: positiveInt(5 * 1024 * 1024 * 1024),
  // Storage (docs/storage.md). EASEL_S3_BUCKET set: s3 workspaces use that bucket, not the embedded store.
  EASEL_S3_ENDPOINT: z.url().optional(),
  EASEL_S3_REGION: z.string().min(1).optional(),
  EASEL_S3_BUCKET: z.string().min(1).optional(),
  EASEL_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  EASEL_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  EASEL_S3_FORCE_PATH_STYLE: flag,
  // EASEL_GCS_BUCKET set: gcs workspaces use Google Cloud Storage, signing with the service account in EASEL_GCS_CREDENTIALS.
  EASEL_GCS_BUCKET: z.string().min(1).optional(),
  EASEL_GCS_CREDENTIALS: z.string().min(1).optional(),
  // Background jobs (docs/jobs.md). Any INNGEST_* set: a real Inngest server runs them, not this app.
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  INNGEST_BASE_URL: z.string().optional(),
  INNGEST_DEV: z.string().optional(),
  PORT: z.string().optional(),
  /** Unset: 16 on PostgreSQL (parallel sessions), 4 on the embedded database (one session). */
  EASEL_JOBS_CONCURRENCY: positiveInt(undefined),
  /** This node serves requests but runs no executor (the other nodes on the same Postgres do). */
  EASEL_JOBS_DISABLED: flag,
  EASEL_JOBS_RETENTION_DAYS: positiveInt(14),
  // Media tools (docs/video.md): a set path must be an executable ffmpeg / ffprobe, or the server does not start.
  EASEL_FFMPEG_PATH: z.string().min(1).optional(),
  EASEL_FFPROBE_PATH: z.string().min(1).optional(),
  // Limits of every child that decodes, renders, probes or encodes an uploaded file (docs/security.md).
  EASEL_MEDIA_TIMEOUT_S: positiveInt(120),
  EASEL_MEDIA_MEMORY_MB: positiveInt(1024),
  // Embeddings for ai_search (docs/search.md). Unset URL: no service is called, ai_search reads queries with rules only.
  EASEL_EMBEDDINGS_URL: z.url({ protocol: /^https?$/ }).optional(),
  EASEL_EMBEDDINGS_MODEL: z.string().min(1).optional(),
  EASEL_EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  EASEL_EMBEDDINGS_MIN_SIMILARITY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return 0.3;
      const n = Number(v);
      if (!Number.isFinite(n) || n < -1 || n > 1) {
        ctx.addIssue({ code: "custom", message: `must be a number from -1 to 1, got "${v}"` });
        return z.NEVER;
      }
      return n;
    }),
});

export type Env = z.infer<typeof EnvSchema> & { dataDir: string };

let cached: Env | null = null;

export function env(): Env {
  if (cached) return cached;
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`Invalid environment: ${first?.path.join(".")} ${first?.message}`);
  }
  // A URL without a model would fail every call: refuse it at start rather than at the first upload.
  if (parsed.data.EASEL_EMBEDDINGS_URL && !parsed.data.EASEL_EMBEDDINGS_MODEL) throw new Error("Invalid environment: EASEL_EMBEDDINGS_MODEL is required when EASEL_EMBEDDINGS_URL is set");
  cached = { ...parsed.data, dataDir: path.resolve(parsed.data.EASEL_DATA_DIR) };
  return cached;
}

/** Tests change process.env between files; they call this to re-read it. */
export function resetEnvCache() {
  cached = null;
}
