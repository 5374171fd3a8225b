import { getDeps } from "@/lib/deps";
import { serveMedia } from "@/lib/media/serve-media";

type Ctx = { params: Promise<{ path: string[] }> };

// GET /media/:asset[/v:n]/:kind — an asset's media by signed link or ?token=<board access token>
export async function GET(req: Request, ctx: Ctx) {
  return serveMedia(await getDeps(), req, (await ctx.params).path);
}

export const HEAD = GET;
