import { Middleware, type Logger } from "inngest";
import { log, withLogContext } from "../log/logger.mjs";

/**
 * Every line logged while a job function runs carries its `run_id` and `function` (the id the
 * runs admin view and the executor's own lines use, e.g. `easel-asset-process`). The SDK calls
 * this around each request to the serve route, and the function body and its steps run inside
 * `next()`, so the log context reaches them however deep they log; the same holds on a real
 * Inngest server, whose run ids these then are.
 */
export class JobLogContext extends Middleware.BaseMiddleware {
  readonly id = "easel-log-context";

  override wrapRequest({ fn, runId, next }: Middleware.WrapRequestArgs) {
    if (!fn || !runId) return next();
    return withLogContext({ run_id: runId, function: fn.id(this.client.id) }, () => next());
  }
}

type Level = "info" | "warn" | "error" | "debug";
const forward =
  (level: Level) =>
  (...args: unknown[]) =>
    (log().child({ component: "inngest" })[level] as (...a: unknown[]) => void)(...args);

/**
 * The SDK's own messages (and `ctx.logger` in a function) through Easel's logger: JSON lines with
 * the run's context, scrubbed like any other, instead of console lines. The SDK calls it pino-style
 * (fields first) or with a message first; pino takes both.
 */
export const sdkLogger: Logger = { info: forward("info"), warn: forward("warn"), error: forward("error"), debug: forward("debug") };
