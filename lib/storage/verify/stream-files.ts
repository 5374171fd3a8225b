import { PLAYLIST_NAME, streamDirOf } from "../../encode/keys";
import { rungNamesOf } from "../../encode/outputs";
import { parseMediaPlaylist } from "../../encode/playlists";

/** A URI of a media playlist as ffmpeg writes it: a file name in the playlist's folder. Anything else names nothing Easel stored. */
const LOCAL_FILE = /^[A-Za-z0-9_.-]+$/;

/**
 * The files of a published HLS stream, found as a player finds them: the master playlist names
 * each rendition's playlist (`<rung>/index.m3u8`), which names its init segment and segments.
 * `readPlaylist` checks a playlist like any other file and returns its text, or null when it is
 * missing or corrupt (and so cannot be trusted to list anything). Yields the files the rendition
 * playlists name; the playlists themselves go through `readPlaylist`, the master through the caller.
 */
export async function* streamFilesAfterMaster(streamKey: string, master: string, readPlaylist: (key: string) => Promise<string | null>): AsyncGenerator<string> {
  const dir = streamDirOf(streamKey);
  for (const rung of rungNamesOf(master)) {
    const playlistKey = `${dir}/${rung}/${PLAYLIST_NAME}`;
    const text = await readPlaylist(playlistKey);
    if (text === null) continue;
    const { map, segments } = parseMediaPlaylist(text);
    const names = [...(map ? [map] : []), ...segments.map((s) => s.uri)].filter((uri) => LOCAL_FILE.test(uri) && uri !== "." && uri !== "..");
    for (const name of new Set(names)) yield `${dir}/${rung}/${name}`;
  }
}
