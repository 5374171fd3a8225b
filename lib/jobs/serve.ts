import type { RequestHandler } from "inngest/next";
import { getDeps } from "../deps";
import { inngest, useSigningKey } from "./client";

type Handlers = { GET: RequestHandler; POST: RequestHandler; PUT: RequestHandler };

/**
 * Wraps the serve handlers so that the embedded signing key is loaded before the first call is
 * verified (it lives in the database). With a real Inngest server this costs nothing.
 */
export function withSigningKey(handlers: Handlers, client = inngest): Handlers {
  const ready = async () => useSigningKey(client, (await getDeps()).db);
  const wrap =
    (h: RequestHandler): RequestHandler =>
    async (req, res) => {
      await ready();
      return h(req, res);
    };
  return { GET: wrap(handlers.GET), POST: wrap(handlers.POST), PUT: wrap(handlers.PUT) };
}
