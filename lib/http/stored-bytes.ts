/**
 * How Easel serves bytes someone uploaded: the one decision for every response that carries them
 * (media links, HLS files, the embedded store's GET and HEAD). Contract §12: untrusted bytes never
 * run on Easel's origin.
 *
 * - Every such response says `X-Content-Type-Options: nosniff` (the browser believes the type
 *   sent and never guesses a runnable one from the bytes) and `Content-Security-Policy:
 *   default-src 'none'; sandbox` (were the bytes ever rendered as a document, it would load
 *   nothing, run no script and have an opaque origin, so it could not use the owner's session).
 * - Only types a browser displays and never runs go out `inline`; everything else (HTML, XHTML,
 *   SVG, XML, JavaScript, PDF, anything unknown or malformed) goes out as `attachment`, whatever
 *   the uploader stored or a signed `response-content-disposition` asks for. Subresource loads
 *   ignore the disposition, so an `<img>` still shows an SVG (SVG in an image runs no script).
 * - The Content-Type sent is the parsed essence of the stored one (`type/subtype`, lower case,
 *   at most a well-formed charset): a malformed or parameter-smuggling value is never echoed.
 *
 * Nothing here imports the rest of Easel, so the object store may use it without a cycle.
 */

export const STORED_BYTES_CSP = "default-src 'none'; sandbox";

/** Sent when the stored type is missing or does not parse as one media type. */
export const OPAQUE_TYPE = "application/octet-stream";

/**
 * Displayed, never run: raster images a browser decodes itself, audio and video (played by the
 * media stack), and HLS playlists and segments. SVG is not here (an SVG document runs script),
 * nor PDF (the viewer runs embedded JavaScript and follows links, and Chrome refuses to show a
 * PDF under a sandbox CSP anyway), nor text/plain (it renders as a document, and old engines
 * sniffed it).
 */
const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]);
const HLS_PLAYLIST_TYPES = new Set(["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"]);

/**
 * Types a page would run or apply if it referenced them (scripts, module workers, service
 * workers, stylesheets). With nosniff a browser refuses a script or stylesheet whose type is not
 * one of these, so they go out as application/octet-stream: no page, Easel's or one injected into
 * it, can load an upload as code from Easel's origin.
 */
const CODE_TYPES = new Set([
  "application/ecmascript",
  "application/javascript",
  "application/x-ecmascript",
  "application/x-javascript",
  "text/ecmascript",
  "text/javascript",
  "text/javascript1.0",
  "text/javascript1.1",
  "text/javascript1.2",
  "text/javascript1.3",
  "text/javascript1.4",
  "text/javascript1.5",
  "text/jscript",
  "text/livescript",
  "text/x-ecmascript",
  "text/x-javascript",
  "text/css",
]);

/** RFC 9110 token characters: what a type, subtype or parameter name may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CHARSET = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,39}$/;

export type MediaTypeEssence = { essence: string; charset: string | null };

/**
 * `type/subtype` of a Content-Type value, lower-cased, and its charset when it has exactly one
 * well-formed one; null when the value is not one media type (empty, a list such as
 * `text/html, image/png`, stray characters, a malformed or repeated parameter).
 */
export function parseMediaType(value: string | null | undefined): MediaTypeEssence | null {
  if (!value || value.length > 256) return null;
  const [head, ...params] = value.split(";");
  const slash = head.indexOf("/");
  if (slash < 0) return null;
  const type = head.slice(0, slash).trim();
  const subtype = head.slice(slash + 1).trim();
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  let charset: string | null = null;
  for (const param of params) {
    if (param.trim() === "") continue;
    const eq = param.indexOf("=");
    if (eq < 0) return null;
    const name = param.slice(0, eq).trim().toLowerCase();
    let raw = param.slice(eq + 1).trim();
    if (!TOKEN.test(name)) return null;
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    if (raw.includes('"') || raw.includes("\\") || raw.includes(",")) return null;
    if (name === "charset") {
      if (charset !== null || !CHARSET.test(raw)) return null;
      charset = raw.toLowerCase();
    }
  }
  return { essence: `${type}/${subtype}`.toLowerCase(), charset };
}

/** Whether bytes of this type (an essence from parseMediaType) may be shown inline. */
export function isInlineSafe(essence: string): boolean {
  if (INLINE_IMAGE_TYPES.has(essence) || HLS_PLAYLIST_TYPES.has(essence)) return true;
  const [type, subtype] = essence.split("/");
  // Any audio or video subtype is played or downloaded, never rendered as a document; a
  // structured suffix (+xml, +json…) names a text format, which is not.
  return (type === "video" || type === "audio") && !subtype.includes("+");
}

/**
 * A file name from a stored or requested Content-Disposition, kept only when it is plainly
 * well-formed (a quoted ASCII string without quotes or backslashes, a token, or an RFC 8187
 * UTF-8 value); anything else is dropped rather than echoed.
 */
function fileNameParams(disposition: string | null | undefined): string {
  if (!disposition || disposition.length > 1024) return "";
  const kept: string[] = [];
  const quoted = /(?:^|;)\s*filename\s*=\s*"([\x20\x21\x23-\x5b\x5d-\x7e]{1,255})"\s*(?=;|$)/i.exec(disposition);
  const bare = /(?:^|;)\s*filename\s*=\s*([!#$%&'*+.^_`|~0-9A-Za-z-]{1,255})\s*(?=;|$)/i.exec(disposition);
  const name = quoted?.[1] ?? bare?.[1];
  if (name) kept.push(`filename="${name}"`);
  const extended = /(?:^|;)\s*filename\*\s*=\s*(UTF-8''[!#$&+.^_`|~0-9A-Za-z%-]{1,765})\s*(?=;|$)/i.exec(disposition);
  if (extended) kept.push(`filename*=${extended[1]}`);
  return kept.map((p) => `; ${p}`).join("");
}

export type StoredBytesHeaders = {
  "Content-Type": string;
  "Content-Disposition": string;
  "X-Content-Type-Options": "nosniff";
  "Content-Security-Policy": string;
};

/**
 * The headers a response carrying stored bytes must have, from the type they were stored (or a
 * signed override asks to be served) with, and any stored or requested Content-Disposition
 * (only its file name is kept; inline or attachment is decided here).
 */
export function storedBytesHeaders(contentType: string | null | undefined, disposition?: string | null): StoredBytesHeaders {
  const parsed = parseMediaType(contentType);
  const inline = parsed !== null && isInlineSafe(parsed.essence);
  let type = OPAQUE_TYPE;
  if (parsed && !CODE_TYPES.has(parsed.essence)) type = parsed.charset && !inline ? `${parsed.essence}; charset=${parsed.charset}` : parsed.essence;
  return {
    "Content-Type": type,
    "Content-Disposition": `${inline ? "inline" : "attachment"}${fileNameParams(disposition)}`,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": STORED_BYTES_CSP,
  };
}

/** Sets the stored-bytes headers on `headers`, replacing any Content-Type, Content-Disposition, CSP or nosniff already there. */
export function applyStoredBytesHeaders(headers: Headers, contentType: string | null | undefined, disposition?: string | null): Headers {
  for (const [name, value] of Object.entries(storedBytesHeaders(contentType, disposition))) headers.set(name, value);
  return headers;
}
