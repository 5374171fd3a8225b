import { getDeps } from "@/lib/deps";
import { toErrorResponse } from "@/lib/http/envelope";
import { openLiveStream } from "@/lib/live/open-stream";

export const dynamic = "force-dynamic";

// GET /api/live/:slug — server-sent events of the workspace's changes; web UI session, same origin only
export async function GET(req: Request, ctx: { params: Promise<{ slug: string }> }): Promise<Response> {
  try {
    return await openLiveStream(await getDeps(), req, (await ctx.params).slug);
  } catch (err) {
    return toErrorResponse(err, req);
  }
}
