import { entityTag, matchesIfNoneMatch } from "../http/entity-tag";
import { storedBytesHeaders } from "../http/stored-bytes";

/**
 * The answer for a text file rewritten per request (a playlist or a storyboard track with the
 * caller's authorisation in its URLs): whole bodies only, no byte ranges, and an ETag of the
 * bytes sent, so a revalidation of an unchanged file costs one 304.
 */
export function rewrittenTextResponse(body: string, contentType: string, request: Request, headers: Record<string, string>): Response {
  const etag = entityTag(body);
  const { "Accept-Ranges": _ranges, ...rest } = headers;
  const common = { ...rest, ...storedBytesHeaders(contentType), ETag: etag };
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: common });
  const bytes = Buffer.from(body);
  return new Response(request.method === "HEAD" ? null : bytes, { headers: { ...common, "Content-Length": String(bytes.length) } });
}
