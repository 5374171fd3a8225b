/**
 * A stored HLS playlist as the media route serves it: the link's authorisation is added to every
 * URI it names, so a player that opened it by signed link or `?token=` fetches the rest alike.
 */

const isRelative = (uri: string) => !/^[a-z][a-z0-9+.-]*:/i.test(uri) && !uri.startsWith("/");

function withQuery(uri: string, prefix: string, query: string): string {
  if (!isRelative(uri)) return uri;
  const joined = `${prefix}${uri}`;
  if (!query) return joined;
  return `${joined}${joined.includes("?") ? "&" : "?"}${query}`;
}

/**
 * A playlist as served: every relative URI (segment and playlist lines, and URI="…" attributes
 * such as #EXT-X-MAP) gets `prefix` in front and `query` appended, so a player that fetched the
 * playlist with a signed link or `?token=` fetches the files it names with the same authorisation.
 */
export function authorizePlaylist(text: string, prefix: string, query: string): string {
  return text
    .split("\n")
    .map((raw) => {
      const line = raw.replace(/\r$/, "");
      if (!line.trim()) return line;
      if (line.startsWith("#")) return line.replace(/URI="([^"]*)"/g, (_, uri: string) => `URI="${withQuery(uri, prefix, query)}"`);
      return withQuery(line.trim(), prefix, query);
    })
    .join("\n");
}
