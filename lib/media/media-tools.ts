import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

export type ToolName = "ffmpeg" | "ffprobe";
/** Where a binary came from: its EASEL_*_PATH variable, a folder of PATH, or the npm package shipped as a last resort. */
export type ToolSource = "env" | "path" | "npm";
export type MediaTool = { name: ToolName; path: string; source: ToolSource };

/** A binary Easel was told to use (or needs) that is missing or does not run; the message says what to fix. */
export class MediaToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MediaToolError";
  }
}

export const TOOL_ENV = { ffmpeg: "EASEL_FFMPEG_PATH", ffprobe: "EASEL_FFPROBE_PATH" } as const;
const NPM_PACKAGE = { ffmpeg: "@ffmpeg-installer/ffmpeg", ffprobe: "@ffprobe-installer/ffprobe" } as const;
/** Searched after PATH: a service manager may start the server with a PATH that leaves them out. */
const STANDARD_DIRS = ["/usr/local/bin", "/usr/bin"];

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false; // absent, unreadable or not executable: not a candidate
  }
}

/**
 * The binary to run for `name`: the configured path when one is given (it must be an executable
 * file, else MediaToolError, never a silent fallback), else the first executable `name` in the
 * folders of `pathEnv` (then /usr/local/bin, /usr/bin), else the build inside the npm package
 * (an old one; docs/video.md). A PATH lookup is these few lines, so no package is added for it.
 */
export function findMediaTool(name: ToolName, opts: { configured?: string; pathEnv?: string; standardDirs?: string[] }): MediaTool {
  if (opts.configured) {
    const file = path.resolve(opts.configured);
    if (!fs.existsSync(file)) throw new MediaToolError(`${TOOL_ENV[name]} is set to ${file}, which does not exist`);
    if (!isExecutableFile(file)) throw new MediaToolError(`${TOOL_ENV[name]} is set to ${file}, which is not an executable file`);
    return { name, path: file, source: "env" };
  }
  const dirs = [...(opts.pathEnv ?? "").split(path.delimiter).filter((d) => path.isAbsolute(d)), ...(opts.standardDirs ?? STANDARD_DIRS)];
  for (const dir of new Set(dirs)) {
    const file = path.join(dir, name);
    if (isExecutableFile(file)) return { name, path: file, source: "path" };
  }
  try {
    // Literal specifiers: the bundler treats these packages as external (next.config.ts) only when it can read them.
    const pkg = (name === "ffmpeg" ? require("@ffmpeg-installer/ffmpeg") : require("@ffprobe-installer/ffprobe")) as { path: string };
    return { name, path: pkg.path, source: "npm" };
  } catch (err) {
    throw new MediaToolError(`no ${name} found on PATH and the ${NPM_PACKAGE[name]} package has none for this platform (${(err as Error).message}); install ${name} or set ${TOOL_ENV[name]}`);
  }
}

/** `ffmpeg -version`'s version (e.g. `5.1.6-0+deb12u1`); MediaToolError when the binary does not run. */
export function toolVersion(tool: MediaTool): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(tool.path, ["-version"], { timeout: 15_000 }, (err, stdout, stderr) => {
      const version = /^\S+ version (\S+)/.exec(stdout)?.[1];
      if (err || !version) {
        const said = (stderr || stdout).trim().split("\n").pop()?.slice(0, 200);
        const why = err
          ? `${err.killed ? "timed out" : err.code !== undefined ? `exit ${err.code}` : err.message}${said ? ` (${said})` : ""}`
          : `it printed no version (${stdout.split("\n")[0].slice(0, 200)})`;
        const origin = tool.source === "env" ? `${TOOL_ENV[tool.name]}=${tool.path}` : tool.path;
        reject(new MediaToolError(`${origin} does not run as ${tool.name}: ${why}`));
      } else resolve(version);
    });
  });
}
