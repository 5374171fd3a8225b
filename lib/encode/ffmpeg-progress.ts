/**
 * Reads the report ffmpeg writes with `-progress pipe:1`: blocks of `key=value` lines, each ended
 * by `progress=continue` (or `progress=end` for the last). Only the output position matters here:
 * `out_time_us` (microseconds of output written; ffmpeg 5's `out_time_ms` holds the same number
 * despite its name). A block without a usable position (`N/A` before the first frame) is skipped.
 */
export function progressReader(onPosition: (seconds: number, ended: boolean) => void): (chunk: Buffer | string) => void {
  let pending = "";
  let position: number | null = null;
  return (chunk) => {
    pending += chunk.toString();
    // A line longer than this is not ffmpeg's report: dropped rather than kept growing.
    if (pending.length > 64 * 1024) pending = "";
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const raw of lines) {
      const line = raw.trim();
      const eq = line.indexOf("=");
      if (eq < 0) continue;
      const key = line.slice(0, eq);
      const value = line.slice(eq + 1);
      if (key === "out_time_us" || (key === "out_time_ms" && position === null)) {
        const us = Number(value);
        if (Number.isFinite(us) && us >= 0) position = us / 1e6;
      } else if (key === "progress") {
        if (position !== null) onPosition(position, value === "end");
        position = null;
      }
    }
  };
}
