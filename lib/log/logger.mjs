// @ts-check
/**
 * Easel's one logger (docs/operations.md, "Logs"): pino, one JSON object per line on stdout with
 * `level` (a name: "info", "warn", ...), `time` (ISO 8601) and `msg`. `EASEL_LOG_LEVEL` picks the
 * least severe level written (default info); `EASEL_LOG_FORMAT=pretty` writes coloured lines for
 * people instead (pino-pretty, in this process: no worker thread to lose lines at exit).
 *
 * Plain JavaScript because both sides of the process use it: Easel's node:http server
 * (lib/server/*.mjs, not bundled) and the app that Next.js bundles. The logger and the request
 * context live on global symbols so that both see one instance and one stdout stream.
 *
 * Context without threading loggers through every call: code that runs for a request or a job run
 * calls `withLogContext({ request_id })` / `withLogContext({ run_id, function })`, and every line
 * logged inside it, however deep, carries those fields (AsyncLocalStorage).
 *
 * Nothing secret is written: the fields named in REDACTED_PATHS are replaced whole, and every
 * string of a line (message, error message and stack, any field) is scrubbed of API tokens,
 * bearer credentials, JWTs and the signing parts of presigned URLs (scrubSecrets).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Writable } from "node:stream";
import pino from "pino";
import pinoPretty from "pino-pretty";

const LEVELS = /** @type {const} */ (["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** Fields whose whole value is a credential, wherever a caller puts them. */
const REDACTED_PATHS = [
  "authorization",
  "headers.authorization",
  "headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
  "token",
  "secret",
  "password",
  "signature",
  "*.authorization",
  "*.token",
  "*.secret",
  "*.password",
  "*.signature",
];

/**
 * Field names whose value is a credential at any depth of a line (pino's paths above reach only
 * fixed depths). Compared lowercased; a name ending in `_secret`, `-secret`, `_password` or
 * `-password` counts too. Names like `asset_token` or `board_token` stay: those are public handles.
 */
const REDACTED_KEYS = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "password",
  "passwd",
  "secret",
  "token",
  "signature",
  "api_key",
  "apikey",
  "access_token",
  "refresh_token",
  "id_token",
  "session_token",
  "sessiontoken",
  "secret_key",
  "secretaccesskey",
  "secret_access_key",
  "signing_key",
  "private_key",
  "x-amz-security-token",
  "x-amz-signature",
  "x-goog-signature",
  "webhook-signature",
]);
const REDACTED_KEY_SUFFIX = /[_-](secret|password)$/;

/** @param {string} key */
function isCredentialKey(key) {
  const k = key.toLowerCase();
  return REDACTED_KEYS.has(k) || REDACTED_KEY_SUFFIX.test(k);
}

/**
 * What a credential looks like inside free text, and what it is replaced with. Presigned URLs keep
 * their path (useful to follow a request) but lose every signing parameter; a URL's password goes,
 * its user and host stay.
 * @type {Array<[RegExp, string]>}
 */
const SECRET_PATTERNS = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+\/=-]+/gi, "$1 [redacted]"],
  [/\beasel_[A-Za-z0-9_-]{8,}/g, "easel_[redacted]"],
  [/\bwhsec_[A-Za-z0-9+\/=]{8,}/g, "whsec_[redacted]"],
  // JWTs (three parts) and JWEs (five, the second empty with direct encryption, as session cookies are).
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){0,2}/g, "[redacted jwt]"],
  [/([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential|Signature|GoogleAccessId|AWSAccessKeyId|sig|token|access_token)=)[^&\s"'#]+/gi, "$1[redacted]"],
  // The SigV4 Authorization header's form: `Credential=AKID/…, SignedHeaders=…, Signature=<hex>`.
  [/(\bCredential=)[^,\s&"']+/g, "$1[redacted]"],
  [/(Signature=)[0-9a-f]{16,}/gi, "$1[redacted]"],
  // A Standard Webhooks signature header value: `v1,<base64 HMAC>`.
  [/\bv1,[A-Za-z0-9+\/]{32,}={0,2}/g, "v1,[redacted]"],
  // user:password@ in a URL (a DATABASE_URL in an error message).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\/\s:@]+:)[^@\s\/]+@/gi, "$1[redacted]@"],
];

/**
 * Every credential-looking part of `text` replaced (see SECRET_PATTERNS).
 * @param {unknown} text
 * @returns {string}
 */
export function scrubSecrets(text) {
  let out = String(text);
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A failed query's error (Drizzle's) carries the statement's bound values in its `params` field
 * and in the "params: …" line of its message and stack: a title, a password hash, a trigger's
 * signing secret. The statement's text stays (it names what failed); the values never reach a line.
 * @param {Record<string, unknown>} err a serialized error (pino folds causes into message and stack)
 */
function withoutQueryValues(err) {
  if (!("params" in err)) return err;
  const shown = `params: ${String(err.params)}`;
  const hidden = "params: [not logged]";
  return {
    ...err,
    params: "[not logged]",
    ...(typeof err.message === "string" ? { message: err.message.replaceAll(shown, hidden) } : {}),
    ...(typeof err.stack === "string" ? { stack: err.stack.replaceAll(shown, hidden) } : {}),
  };
}

/**
 * An error's message and its cause's, for a person at a terminal (the CLI's last words): a failed
 * query's bound values hidden as in log lines, secrets scrubbed.
 * @param {unknown} err
 * @returns {string}
 */
export function readableErrorMessage(err) {
  if (!(err instanceof Error)) return scrubSecrets(String(err));
  /** @param {Error & { params?: unknown }} e */
  const hide = (e) => ("params" in e ? e.message.replaceAll(`params: ${String(e.params)}`, "params: [not logged]") : e.message);
  const cause = err.cause instanceof Error ? `: ${hide(err.cause)}` : "";
  return scrubSecrets(`${hide(err)}${cause}`);
}

/**
 * Strings scrubbed and credential fields replaced at any depth (bounded: a log line is small, and
 * a cycle stops at the bound). Errors are serialized first (type, message, stack, cause, own
 * fields); a value with toJSON (a URL, a Date) is scrubbed as what it would print.
 * @param {unknown} value
 * @returns {unknown}
 */
function scrubValue(value, depth = 0) {
  if (typeof value === "string") return scrubSecrets(value);
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return scrubValue(withoutQueryValues(pino.stdSerializers.err(value)), depth + 1);
  if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (typeof (/** @type {{ toJSON?: unknown }} */ (value).toJSON) === "function") return scrubValue(/** @type {{ toJSON: () => unknown }} */ (value).toJSON(), depth + 1);
  if (Array.isArray(value)) return value.map((/** @type {unknown} */ v) => scrubValue(v, depth + 1));
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = isCredentialKey(k) && v !== undefined && v !== null ? "[redacted]" : scrubValue(v, depth + 1);
  return out;
}

/** EASEL_LOG_LEVEL, checked: an unknown level stops the start with a clear message. */
export function logLevelFromEnv(value = process.env.EASEL_LOG_LEVEL) {
  if (value === undefined || value === "") return "info";
  const level = value.toLowerCase();
  if (!LEVELS.includes(/** @type {any} */ (level))) throw new Error(`EASEL_LOG_LEVEL must be one of ${LEVELS.join(", ")}, got "${value}"`);
  return level;
}

/** EASEL_LOG_FORMAT: "json" (default) or "pretty". */
export function logFormatFromEnv(value = process.env.EASEL_LOG_FORMAT) {
  if (value === undefined || value === "" || value === "json") return "json";
  if (value === "pretty") return "pretty";
  throw new Error(`EASEL_LOG_FORMAT must be "json" or "pretty", got "${value}"`);
}

/**
 * A logger writing to `destination` (stdout by default; the CLI passes stderr, tests an object
 * whose `write(line)` keeps the lines). `level` and `format` are checked like the variables.
 * @param {{ level?: string, format?: string, destination?: { write(chunk: string): unknown } }} [options]
 */
export function createLogger(options = {}) {
  const level = logLevelFromEnv(options.level ?? process.env.EASEL_LOG_LEVEL);
  const format = logFormatFromEnv(options.format ?? process.env.EASEL_LOG_FORMAT);
  /** @type {pino.LoggerOptions} */
  const config = {
    level,
    base: undefined, // no pid/hostname on every line: the orchestrator knows them
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: "msg",
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => /** @type {Record<string, unknown>} */ (scrubValue(object)),
    },
    hooks: {
      logMethod(args, method) {
        // The message (and printf-style arguments) are scrubbed like every field.
        method.apply(this, /** @type {any} */ (args.map((a) => (typeof a === "string" ? scrubSecrets(a) : a))));
      },
    },
    // A copy: pino merges each line's own fields into the object mixin returns, which would
    // otherwise be the context itself and carry one line's fields onto every later line.
    mixin: () => ({ ...logContext.getStore() }),
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    // Errors are serialized (type, message, stack, cause) by scrubValue, before scrubbing.
    serializers: { err: (err) => err },
  };
  if (format === "pretty") {
    return pino(config, pinoPretty({ destination: prettyDestination(options.destination), sync: true, colorize: !options.destination }));
  }
  return pino(config, /** @type {pino.DestinationStream} */ (options.destination ?? pino.destination({ dest: 1, sync: true })));
}

/**
 * pino-pretty pipes into a stream; a plain `{ write }` object (a test's) is wrapped in one.
 * @param {{ write(chunk: string): unknown } | undefined} destination
 * @returns {any}
 */
function prettyDestination(destination) {
  if (!destination) return 1;
  if (destination instanceof Writable) return destination;
  return new Writable({
    write(chunk, _encoding, done) {
      destination.write(String(chunk));
      done();
    },
  });
}

/** @typedef {{ logger: pino.Logger | undefined, context: AsyncLocalStorage<Record<string, unknown>> }} LogState */

const STATE = Symbol.for("easel.log");
/** @type {LogState} */
const state = /** @type {any} */ (globalThis)[STATE] ?? (/** @type {any} */ (globalThis)[STATE] = { logger: undefined, context: new AsyncLocalStorage() });
const logContext = state.context;

/** The process's logger (made on first use, from the environment). */
export function log() {
  return (state.logger ??= createLogger());
}

/**
 * Replaces the process's logger (tests that read the lines back). Returns the previous one.
 * @param {pino.Logger | undefined} logger
 */
export function setLogger(logger) {
  const previous = state.logger;
  state.logger = logger;
  return previous;
}

/**
 * Runs `fn` with `fields` added to every line it logs (nested contexts merge).
 * @template T
 * @param {Record<string, unknown>} fields
 * @param {() => T} fn
 * @returns {T}
 */
export function withLogContext(fields, fn) {
  return logContext.run({ ...(logContext.getStore() ?? {}), ...fields }, fn);
}

/** The fields of the context the caller runs in (e.g. the request id), or an empty object. */
export function currentLogContext() {
  return logContext.getStore() ?? {};
}
