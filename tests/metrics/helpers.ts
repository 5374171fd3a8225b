import { Writable } from "node:stream";
import { createLogger, setLogger } from "../../lib/log/logger.mjs";

/**
 * The value of one sample in Prometheus text: `name{labels}` exactly as the registry writes it
 * (labels in the order they were declared), or 0 when the series does not exist yet.
 */
export function sample(text: string, series: string): number {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

/** Every line the process logs from now on, parsed, until `restore()`. */
export function captureLogs(level = "debug") {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const previous = setLogger(createLogger({ level, format: "json", destination }));
  return { lines, restore: () => setLogger(previous) };
}
