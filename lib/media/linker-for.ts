import type { Deps } from "../deps";
import { mediaBaseUrl } from "../http/base-url";
import { getSecret } from "../secrets";
import { mediaLinker, type MediaLinker } from "./links";

/** Signed media links for this request's answer, on the media origin (EASEL_MEDIA_ORIGIN, else Easel's public origin). */
export async function linkerFor(req: Request, deps: Deps): Promise<MediaLinker> {
  return mediaLinker(mediaBaseUrl(req), await getSecret(deps.db, "media_url_key"), deps.clock());
}
