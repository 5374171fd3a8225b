import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "../env";
import { captureLogs } from "../log/capture";
import { findMediaTool, MediaToolError, toolVersion } from "./media-tools";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "easel-media-tools-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A folder holding a script named `name` that prints what `-version` would. */
function fakeTool(dir: string, name: string, body: string, mode = 0o755): string {
  fs.mkdirSync(path.join(root, dir), { recursive: true });
  const file = path.join(root, dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode });
  return file;
}

describe("finding ffmpeg and ffprobe", () => {
  it("takes the first executable on PATH, skipping folders without it, relative entries and non-executable files", () => {
    fakeTool("a", "ffmpeg", "exit 0", 0o644);
    const wanted = fakeTool("b", "ffmpeg", 'echo "ffmpeg version 9.9-b Copyright"');
    fakeTool("c", "ffmpeg", 'echo "ffmpeg version 9.9-c Copyright"');
    const pathEnv = ["relative/dir", path.join(root, "none"), path.join(root, "a"), path.join(root, "b"), path.join(root, "c")].join(path.delimiter);
    expect(findMediaTool("ffmpeg", { pathEnv, standardDirs: [] })).toEqual({ name: "ffmpeg", path: wanted, source: "path" });
  });

  it("searches the standard folders after PATH, then falls back to the npm package's build", () => {
    const std = fakeTool("std", "ffprobe", 'echo "ffprobe version 1"');
    expect(findMediaTool("ffprobe", { pathEnv: "", standardDirs: [path.dirname(std)] })).toMatchObject({ path: std, source: "path" });
    const npm = findMediaTool("ffprobe", { pathEnv: path.join(root, "none"), standardDirs: [] });
    expect(npm.source).toBe("npm");
    expect(npm.path).toContain("@ffprobe-installer");
  });

  it("uses a configured path over PATH, and refuses one that is missing or not executable, naming the variable", () => {
    const configured = fakeTool("conf", "my-ffmpeg", 'echo "ffmpeg version 7.0-conf Copyright"');
    const pathEnv = path.join(root, "b");
    expect(findMediaTool("ffmpeg", { configured, pathEnv })).toEqual({ name: "ffmpeg", path: configured, source: "env" });
    expect(() => findMediaTool("ffmpeg", { configured: path.join(root, "nope/ffmpeg"), pathEnv })).toThrow(new MediaToolError(`EASEL_FFMPEG_PATH is set to ${path.join(root, "nope/ffmpeg")}, which does not exist`));
    const plain = fakeTool("conf", "not-executable", "exit 0", 0o644);
    expect(() => findMediaTool("ffprobe", { configured: plain, pathEnv })).toThrow(/EASEL_FFPROBE_PATH is set to .*not-executable, which is not an executable file/);
    expect(() => findMediaTool("ffprobe", { configured: root, pathEnv })).toThrow(/not an executable file/);
  });

  it("reads the version, and says which binary does not run and why", async () => {
    expect(await toolVersion({ name: "ffmpeg", path: fakeTool("v", "ffmpeg", 'echo "ffmpeg version 6.1.1-x Copyright (c)"'), source: "path" })).toBe("6.1.1-x");
    const failing = fakeTool("v", "broken", "echo boom >&2; exit 3");
    await expect(toolVersion({ name: "ffprobe", path: failing, source: "env" })).rejects.toThrow(new MediaToolError(`EASEL_FFPROBE_PATH=${failing} does not run as ffprobe: exit 3 (boom)`));
    const other = fakeTool("v", "other", 'echo "something else"');
    await expect(toolVersion({ name: "ffmpeg", path: other, source: "path" })).rejects.toThrow(/does not run as ffmpeg: it printed no version \(something else\)/);
  });
});

describe("checkMediaTools (server start)", () => {
  afterEach(() => {
    delete process.env.EASEL_FFMPEG_PATH;
    delete process.env.EASEL_FFPROBE_PATH;
    resetEnvCache();
    vi.resetModules();
  });

  /** lib/media/ffmpeg.ts resolves once per process: each case loads it afresh with its environment. */
  async function check(vars: Record<string, string>) {
    delete process.env.EASEL_FFMPEG_PATH;
    delete process.env.EASEL_FFPROBE_PATH;
    Object.assign(process.env, vars);
    resetEnvCache();
    vi.resetModules();
    const logs = captureLogs();
    try {
      const { checkMediaTools, binaries } = await import("./ffmpeg");
      const outcome = await checkMediaTools().then(() => "ok", (err: unknown) => err);
      return { outcome, binaries: outcome === "ok" ? binaries() : null, lines: logs.lines() };
    } finally {
      logs.restore();
    }
  }

  it("logs once which binaries and versions are used", async () => {
    const ffmpeg = fakeTool("start", "ffmpeg", 'echo "ffmpeg version 8.0-start Copyright"');
    const ffprobe = fakeTool("start", "ffprobe", 'echo "ffprobe version 8.0-start Copyright"');
    const { outcome, binaries, lines } = await check({ EASEL_FFMPEG_PATH: ffmpeg, EASEL_FFPROBE_PATH: ffprobe });
    expect(outcome).toBe("ok");
    expect(binaries).toEqual({ ffmpeg, ffprobe });
    expect(lines).toEqual([
      expect.objectContaining({
        level: "info",
        component: "media",
        ffmpeg: { path: ffmpeg, source: "env", version: "8.0-start" },
        ffprobe: { path: ffprobe, source: "env", version: "8.0-start" },
        msg: `media tools: ffmpeg 8.0-start (${ffmpeg}), ffprobe 8.0-start (${ffprobe})`,
      }),
    ]);
  });

  it("without configuration, a binary that does not run is logged as an error and the start goes on", async () => {
    const broken = fakeTool("unconfigured", "ffmpeg", "echo 'not today' >&2; exit 2");
    const savedPath = process.env.PATH;
    process.env.PATH = path.dirname(broken);
    try {
      const { outcome, lines } = await check({});
      expect(outcome).toBe("ok");
      expect(lines.find((l) => l.level === "error")).toMatchObject({ component: "media", tool: "ffmpeg", path: broken, msg: expect.stringContaining("ffmpeg is not usable") });
      expect(lines.find((l) => l.level === "info")?.msg).toMatch(new RegExp(`^media tools: ffmpeg \\(not usable\\) \\(${broken}\\), ffprobe \\S+ \\(`));
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it("stops the start with a clear message when a configured binary is missing or does not run", async () => {
    const missing = await check({ EASEL_FFMPEG_PATH: path.join(root, "gone/ffmpeg") });
    // A class of the freshly loaded module: known by its name.
    expect(missing.outcome).toMatchObject({ name: "MediaToolError" });
    expect((missing.outcome as Error).message).toBe(`EASEL_FFMPEG_PATH is set to ${path.join(root, "gone/ffmpeg")}, which does not exist`);

    const broken = fakeTool("start", "broken-ffprobe", "exit 1");
    const notRunning = await check({ EASEL_FFPROBE_PATH: broken });
    expect(notRunning.outcome).toMatchObject({ name: "MediaToolError", message: `EASEL_FFPROBE_PATH=${broken} does not run as ffprobe: exit 1` });
  });
});
