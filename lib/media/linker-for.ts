import type { Deps } from "../deps";
import { publicBaseUrl } from "../http/base-url";
import { getSecret } from "../secrets";
import { mediaLinker, type MediaLinker } from "./links";

export async function linkerFor(req: Request, deps: Deps): Promise<MediaLinker> {
  return mediaLinker(publicBaseUrl(req), await getSecret(deps.db, "media_url_key"), deps.clock());
}
