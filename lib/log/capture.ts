import { createLogger, setLogger } from "./logger.mjs";

export type LogLine = { level: string; time: string; msg: string } & Record<string, unknown>;

/**
 * For tests: replaces the process's logger with one that keeps every line (JSON, every level
 * unless told) until `restore()`. `text()` is the raw output, `lines()` each line parsed.
 */
export function captureLogs(level = "trace") {
  const chunks: string[] = [];
  const previous = setLogger(createLogger({ level, format: "json", destination: { write: (s: string) => chunks.push(s) } }));
  const text = () => chunks.join("");
  return {
    text,
    lines: (): LogLine[] =>
      text()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogLine),
    clear: () => void chunks.splice(0),
    restore: () => void setLogger(previous),
  };
}
