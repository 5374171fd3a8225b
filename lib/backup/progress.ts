/**
 * One progress line, rewritten in place, on a terminal only: a backup run by cron or a script
 * keeps its stderr for errors.
 */
export function progressLine(stream: NodeJS.WriteStream, label: string): { update: (bytes: number, objects?: number) => void; end: () => void } {
  if (!stream.isTTY) return { update: () => undefined, end: () => undefined };
  const started = Date.now();
  let last = 0;
  let shown = false;
  return {
    update(bytes, objects) {
      const now = Date.now();
      if (now - last < 250) return;
      last = now;
      const rate = bytes / Math.max((now - started) / 1000, 0.001);
      stream.write(`\r\x1b[K${label}: ${formatBytes(bytes)}${objects === undefined ? "" : `, ${objects} objects`}, ${formatBytes(rate)}/s`);
      shown = true;
    },
    end() {
      if (shown) stream.write("\r\x1b[K");
    },
  };
}

export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}
