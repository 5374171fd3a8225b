import { DrizzleQueryError } from "drizzle-orm/errors";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, currentLogContext, log, logFormatFromEnv, logLevelFromEnv, readableErrorMessage, scrubSecrets, setLogger, withLogContext } from "./logger.mjs";

/** A logger whose lines are kept: the raw text and each line parsed. */
function capture(options: { level?: string; format?: string } = {}) {
  const chunks: string[] = [];
  const logger = createLogger({ level: "trace", format: "json", ...options, destination: { write: (s: string) => chunks.push(s) } });
  const text = () => chunks.join("");
  const lines = () => text().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, text, lines };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

const API_TOKEN = "easel_Zq8rT2mVx9LkP4wN7bYc3Hs";
const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJib2FyZDprN3dQIiwiZXhwIjoxNzAwMDAwMDAwfQ.Jx5vQ2m8Yw1nRk3cT7pLzA9sH4dF6gB0eU2iO5aKqMs";
const S3_SIGNATURE = "3f9a1c7e5b2d8f406a1e9c3b7d5f2a8e6c4b0d9f1e3a5c7b9d2f4e6a8c0b1d3e";
const S3_SESSION = "IQoJb3JpZ2luX2VjEBAaCXVzLWVhc3QtMSJHMEUCIQDx7";
const S3_URL =
  "https://easel.s3.us-east-1.amazonaws.com/ws/1/originals/abc?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
  "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z" +
  `&X-Amz-Expires=900&X-Amz-Security-Token=${S3_SESSION}&X-Amz-Signature=${S3_SIGNATURE}&X-Amz-SignedHeaders=host`;
const GCS_SIGNATURE = "8b1d0f4e2a6c9e3b7d5f1a0c4e8b2d6f9a3c7e1b5d0f4a8c2e6b9d3f7a1c5e0b";
const GCS_URL =
  "https://storage.googleapis.com/easel/ws/2/originals/def?X-Goog-Algorithm=GOOG4-RSA-SHA256" +
  "&X-Goog-Credential=easel%40project.iam.gserviceaccount.com%2F20250101%2Fauto%2Fstorage%2Fgoog4_request" +
  `&X-Goog-Date=20250101T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=${GCS_SIGNATURE}`;
const SECRETS = [API_TOKEN, JWT, S3_SIGNATURE, S3_SESSION, "AKIAIOSFODNN7EXAMPLE", GCS_SIGNATURE, "gserviceaccount"];

describe("lines", () => {
  it("are one JSON object per line with level (a name), time (ISO 8601) and msg, and the caller's fields", () => {
    const { logger, text, lines } = capture();
    logger.info({ asset_id: 7, keys: 3 }, "asset deleted");
    logger.warn("no fields");
    expect(text().endsWith("\n")).toBe(true);
    expect(text().split("\n").filter(Boolean)).toHaveLength(2);
    const [first, second] = lines();
    expect(first).toEqual({ level: "info", time: expect.any(String), msg: "asset deleted", asset_id: 7, keys: 3 });
    expect(new Date(first.time as string).toISOString()).toBe(first.time);
    expect(second).toMatchObject({ level: "warn", msg: "no fields" });
    // No pid or hostname on every line.
    expect(Object.keys(second).sort()).toEqual(["level", "msg", "time"]);
  });

  it("serialize errors under err with type, message and stack (and the cause)", () => {
    const { logger, lines } = capture();
    logger.error({ err: new TypeError("bad input", { cause: new Error("deeper") }), upload_id: 4 }, "upload failed");
    const [line] = lines();
    expect(line).toMatchObject({ level: "error", msg: "upload failed", upload_id: 4, err: { type: "TypeError", message: "bad input: deeper" } });
    expect((line.err as { stack: string }).stack).toMatch(/^TypeError: bad input\n\s+at /);
    expect((line.err as { stack: string }).stack).toContain("caused by: Error: deeper");
  });

  it("carry the fields of the context they are logged in, however deep, nested contexts merged", async () => {
    const { logger, lines } = capture();
    setLogger(logger);
    try {
      await withLogContext({ request_id: "req-1" }, async () => {
        expect(currentLogContext()).toEqual({ request_id: "req-1" });
        await new Promise((r) => setTimeout(r, 1));
        log().info("in the request");
        await withLogContext({ run_id: "01RUN", function: "easel-asset-process" }, async () => {
          await Promise.resolve();
          log().info("in the run");
        });
      });
      log().info("outside");
      expect(currentLogContext()).toEqual({});
    } finally {
      setLogger(undefined);
    }
    expect(lines().map(({ time: _, ...rest }) => rest)).toEqual([
      { level: "info", request_id: "req-1", msg: "in the request" },
      { level: "info", request_id: "req-1", run_id: "01RUN", function: "easel-asset-process", msg: "in the run" },
      { level: "info", msg: "outside" },
    ]);
  });

  it("setLogger swaps the process's logger and answers the previous one", () => {
    const a = capture();
    const b = capture();
    const before = setLogger(a.logger);
    try {
      log().info("to a");
      expect(setLogger(b.logger)).toBe(a.logger);
      log().info("to b");
    } finally {
      setLogger(before);
    }
    expect(a.lines().map((l) => l.msg)).toEqual(["to a"]);
    expect(b.lines().map((l) => l.msg)).toEqual(["to b"]);
  });
});

describe("levels", () => {
  it("writes the chosen level and the more severe ones only", () => {
    const { logger, lines } = capture({ level: "warn" });
    logger.trace("t");
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    logger.fatal("f");
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      ["warn", "w"],
      ["error", "e"],
      ["fatal", "f"],
    ]);
    expect(logger.isLevelEnabled("info")).toBe(false);
  });

  it("silent writes nothing; trace writes everything", () => {
    const silent = capture({ level: "silent" });
    silent.logger.fatal("f");
    expect(silent.text()).toBe("");
    const trace = capture({ level: "trace" });
    trace.logger.trace("t");
    expect(trace.lines().map((l) => l.level)).toEqual(["trace"]);
  });

  it("EASEL_LOG_LEVEL: info by default, any case accepted, anything else refused with the list", () => {
    vi.stubEnv("EASEL_LOG_LEVEL", ""); // the suite's own setup sets warn
    expect(logLevelFromEnv(undefined)).toBe("info");
    expect(logLevelFromEnv("")).toBe("info");
    expect(logLevelFromEnv("DEBUG")).toBe("debug");
    expect(() => logLevelFromEnv("verbose")).toThrow('EASEL_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"');
  });

  it("a logger made without a level reads EASEL_LOG_LEVEL, and refuses a bad one", () => {
    vi.stubEnv("EASEL_LOG_LEVEL", "error");
    const chunks: string[] = [];
    const logger = createLogger({ format: "json", destination: { write: (s: string) => chunks.push(s) } });
    logger.warn("dropped");
    logger.error("kept");
    expect(chunks.map((c) => JSON.parse(c).msg)).toEqual(["kept"]);
    vi.stubEnv("EASEL_LOG_LEVEL", "loud");
    expect(() => createLogger({ destination: { write: () => undefined } })).toThrow(/EASEL_LOG_LEVEL must be one of/);
    expect(() => createLogger({ level: "loud", destination: { write: () => undefined } })).toThrow(/EASEL_LOG_LEVEL must be one of/);
  });
});

describe("formats", () => {
  it("EASEL_LOG_FORMAT: json by default, pretty on request, anything else refused", () => {
    expect(logFormatFromEnv(undefined)).toBe("json");
    expect(logFormatFromEnv("json")).toBe("json");
    expect(logFormatFromEnv("pretty")).toBe("pretty");
    expect(() => logFormatFromEnv("text")).toThrow('EASEL_LOG_FORMAT must be "json" or "pretty", got "text"');
    vi.stubEnv("EASEL_LOG_FORMAT", "xml");
    expect(() => createLogger({ destination: { write: () => undefined } })).toThrow(/EASEL_LOG_FORMAT/);
  });

  it("pretty writes a line for people (level name, message, fields), no JSON, and still scrubs", () => {
    const { logger, text } = capture({ format: "pretty" });
    logger.warn({ check: "database", token: API_TOKEN }, `readiness check failed for Bearer ${API_TOKEN}`);
    const out = text();
    expect(() => JSON.parse(out)).toThrow();
    expect(out).toContain("WARN");
    expect(out).toContain("readiness check failed for Bearer [redacted]");
    expect(out).toContain("check");
    expect(out).toContain("database");
    expect(out).not.toContain(API_TOKEN);
  });
});

describe("nothing secret is written", () => {
  it("credential fields are replaced whole, at the top and nested at any depth, whatever their case", () => {
    const { logger, text, lines } = capture();
    logger.info(
      {
        authorization: `Bearer ${API_TOKEN}`,
        token: "plain-token-value",
        secret: "plain-secret-value",
        password: "correct horse battery staple",
        headers: { authorization: "Basic dXNlcjpwYXNz", cookie: "authjs.session-token=abc123" },
        hook: { signing_secret: "whsec_abc", delivery: { attempt: { Authorization: "opaque-value-1", new_password: "opaque-value-2", "X-Amz-Security-Token": "opaque-value-3" } } },
        asset_token: "k7wPq2", // a public handle, kept
      },
      "request",
    );
    const [line] = lines();
    expect(line).toMatchObject({
      authorization: "[redacted]",
      token: "[redacted]",
      secret: "[redacted]",
      password: "[redacted]",
      headers: { authorization: "[redacted]", cookie: "[redacted]" },
      hook: { signing_secret: "[redacted]", delivery: { attempt: { Authorization: "[redacted]", new_password: "[redacted]", "X-Amz-Security-Token": "[redacted]" } } },
      asset_token: "k7wPq2",
    });
    for (const raw of ["plain-token-value", "plain-secret-value", "correct horse", "dXNlcjpwYXNz", "abc123", "whsec_abc", "opaque-value"]) expect(text()).not.toContain(raw);
  });

  it("API tokens, bearer credentials, JWTs and presigned S3 and GCS URLs are scrubbed from the message and printf arguments", () => {
    const { logger, text, lines } = capture();
    logger.info(`using ${API_TOKEN} as Bearer ${API_TOKEN}, board token ${JWT}`);
    logger.info("fetching %s then %s", S3_URL, GCS_URL);
    for (const secret of SECRETS) expect(text()).not.toContain(secret);
    const [first, second] = lines();
    expect(first.msg).toBe("using easel_[redacted] as Bearer [redacted], board token [redacted jwt]");
    // The URL keeps its path and harmless parameters: enough to follow what was fetched.
    expect(second.msg).toContain("https://easel.s3.us-east-1.amazonaws.com/ws/1/originals/abc?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[redacted]");
    expect(second.msg).toContain("X-Amz-Security-Token=[redacted]&X-Amz-Signature=[redacted]&X-Amz-SignedHeaders=host");
    expect(second.msg).toContain("https://storage.googleapis.com/easel/ws/2/originals/def?");
    expect(second.msg).toContain("X-Goog-Signature=[redacted]");
  });

  it("error messages, stacks, causes and error fields are scrubbed", () => {
    const { logger, text, lines } = capture();
    const err = Object.assign(new Error(`PUT ${S3_URL} failed with Bearer ${JWT}`, { cause: new Error(`token ${API_TOKEN} refused at ${GCS_URL}`) }), {
      url: GCS_URL,
      $response: { headers: { authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${S3_SIGNATURE}` } },
    });
    logger.error({ err }, "storage write failed");
    logger.error(err, "the same error, first argument");
    for (const secret of SECRETS) expect(text()).not.toContain(secret);
    const [line] = lines();
    const e = line.err as Record<string, unknown>;
    expect(e.message).toContain("X-Amz-Signature=[redacted]");
    expect(e.message).toContain("token easel_[redacted] refused");
    expect(e.stack).toMatch(/^Error: PUT https:\/\/easel\.s3\.us-east-1\.amazonaws\.com\/ws\/1\/originals\/abc\?/);
    expect(e.url).toContain("X-Goog-Signature=[redacted]");
    expect(e.$response).toEqual({ headers: { authorization: "[redacted]" } });
  });

  it("strings nested in fields and arrays are scrubbed, as are URL objects", () => {
    const { logger, text, lines } = capture();
    logger.warn({ upload: { parts: [{ url: S3_URL }, { url: GCS_URL }], note: `sent ${API_TOKEN}` }, target: new URL(S3_URL), at: new Date(0) }, "upload slow");
    for (const secret of SECRETS) expect(text()).not.toContain(secret);
    const [line] = lines();
    expect(line.at).toBe("1970-01-01T00:00:00.000Z");
    expect(line.target).toContain("X-Amz-Signature=[redacted]");
    expect((line.upload as { note: string }).note).toBe("sent easel_[redacted]");
  });

  it("scrubSecrets also covers webhook secrets and signatures, SigV4 headers, session cookies (JWE) and URL passwords", () => {
    expect(scrubSecrets("secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toBe("secret whsec_[redacted]");
    expect(scrubSecrets("webhook-signature: v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=")).toBe("webhook-signature: v1,[redacted]");
    expect(scrubSecrets(`Credential=AKIAIOSFODNN7EXAMPLE/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${S3_SIGNATURE}`)).toBe(
      "Credential=[redacted], SignedHeaders=host, Signature=[redacted]",
    );
    expect(scrubSecrets("cookie eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..q1w2e3r4t5y6.a1s2d3f4g5h6j7k8.z1x2c3v4b5n6")).toBe("cookie [redacted jwt]");
    expect(scrubSecrets("connect postgres://easel:hunter2@db.internal:5432/easel failed")).toBe("connect postgres://easel:[redacted]@db.internal:5432/easel failed");
    // Ordinary text is left alone.
    expect(scrubSecrets("asset k7wPq2 v3 processed in 1.2 s")).toBe("asset k7wPq2 v3 processed in 1.2 s");
  });

  it("keeps a failed query's statement but none of its bound values, in fields, message or stack", () => {
    const { logger, text, lines } = capture();
    const cause = Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), { code: "CONNECTION_CLOSED" });
    const err = new DrizzleQueryError("insert into users (email, password_hash) values ($1, $2)", ["ana@example.com", "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA"], cause);
    logger.error({ err }, "could not create the user");
    expect(text()).not.toContain("ana@example.com");
    expect(text()).not.toContain("$scrypt$");
    const [line] = lines() as [{ err: { message: string; stack: string; query: string; params: string } }];
    expect(line.err.query).toBe("insert into users (email, password_hash) values ($1, $2)");
    expect(line.err.params).toBe("[not logged]");
    expect(line.err.message).toContain("params: [not logged]");
    expect(line.err.message).toContain("CONNECTION_CLOSED"); // the cause still shows
    expect(line.err.stack).toContain("params: [not logged]");
  });

  it("a failed query's message for a terminal keeps the statement and the cause, never the values", () => {
    const cause = new Error("unnamed prepared statement does not exist");
    const err = new DrizzleQueryError("insert into settings (key, value) values ($1, $2)", ["object_store_secret_key", "s3cr3t-value-generated"], cause);
    const text = readableErrorMessage(err);
    expect(text).toContain("insert into settings");
    expect(text).toContain("unnamed prepared statement does not exist");
    expect(text).not.toContain("s3cr3t-value-generated");
    expect(text).toContain("params: [not logged]");
  });
});
