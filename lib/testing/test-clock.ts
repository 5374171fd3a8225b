import { z } from "zod";
import { setClockNow, systemClock } from "../clock";
import { env } from "../env";
import { errorResponse, toErrorResponse } from "../http/envelope";
import { parseJson } from "../http/parse";

const Body = z.object({ now: z.iso.datetime({ offset: true }).nullable() });

/**
 * POST /api/test/clock {"now": ISO 8601 | null}: moves the server's clock (revert windows, token
 * and trigger expiry). Exists only with EASEL_TEST_CLOCK=1; otherwise the route answers 404.
 */
export async function handleTestClock(req: Request): Promise<Response> {
  if (!env().EASEL_TEST_CLOCK) return errorResponse("route_not_found", "No such route");
  try {
    const { now } = await parseJson(req, Body);
    setClockNow(now === null ? null : new Date(now));
    return Response.json({ data: { now: systemClock().toISOString() } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
