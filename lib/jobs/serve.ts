import { serve, type RequestHandler } from "inngest/next";
import { getDeps } from "../deps";
import { inngest, useSigningKey } from "./client";
import { functions } from "./functions";

export type ServeHandlers = { GET: RequestHandler; POST: RequestHandler; PUT: RequestHandler };

/**
 * Wraps the serve handlers so that the embedded signing key is loaded before the first call is
 * verified (it lives in the database). With a real Inngest server this costs nothing.
 */
export function withSigningKey(handlers: ServeHandlers, client = inngest): ServeHandlers {
  const ready = async () => useSigningKey(client, (await getDeps()).db);
  const wrap =
    (h: RequestHandler): RequestHandler =>
    async (req, res) => {
      await ready();
      return h(req, res);
    };
  return { GET: wrap(handlers.GET), POST: wrap(handlers.POST), PUT: wrap(handlers.PUT) };
}

/**
 * Easel's serve endpoint: every job function, signed requests only (no unauthenticated sync).
 * The route at /api/inngest exposes it to an Inngest server; the embedded executor calls the same
 * handlers in-process.
 */
export function serveJobs(): ServeHandlers {
  return withSigningKey(serve({ client: inngest, functions, enableUnauthedSync: false }));
}
