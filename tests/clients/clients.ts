/**
 * The real S3 clients (rclone, s3cmd, aws-cli, as Debian packages them) against a build started as
 * `npm start` starts it: the embedded PGlite database and the embedded object store in a data dir
 * of its own, the keys read from `npm run easel -- storage credentials` as an operator would. Each
 * tool runs with a HOME and config files of their own in a test file's temp dir, pointed only at
 * that server.
 */
import { execFile, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { expect } from "vitest";
import { builtAppDir, freePort, repoRoot, startNode, stopNode, waitFor200, type EaselNode } from "../../bench/scale/cluster";

/** Debian's binaries, by path: `aws` on PATH may be another awscli (a pyenv shim). */
export const TOOLS = {
  rclone: { bin: "/usr/bin/rclone", apt: "rclone" },
  s3cmd: { bin: "/usr/bin/s3cmd", apt: "s3cmd" },
  aws: { bin: "/usr/bin/aws", apt: "awscli" },
} as const;

export const MiB = 1024 * 1024;

export type StoreCredentials = { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string };

/** Fails loudly (never skips) when a tool the suite drives is not installed. */
export function requireTool(name: keyof typeof TOOLS): string {
  const { bin, apt } = TOOLS[name];
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    throw new Error(`${bin} is missing: tests/clients drive Debian's ${apt} (apt-get install ${apt}; .ci/run installs it)`);
  }
  return bin;
}

/** The admin CLI run as `npm run easel -- …` runs it, with the server's environment; resolves to its whole stdout. */
function easel(env: Record<string, string | undefined>, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { cwd: repoRoot, env: { ...process.env, ...env } as NodeJS.ProcessEnv }, (err, stdout, stderr) => {
      if (err) reject(new Error(`easel ${args.join(" ")}: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/** `storage credentials` prints `name: value` lines (docs/storage.md). */
export function parseCredentials(output: string): StoreCredentials {
  const fields = new Map(output.split("\n").map((line) => /^(\w+): (.+)$/.exec(line.trim())).filter((m) => m !== null).map((m) => [m[1], m[2]]));
  const need = (name: string) => {
    const value = fields.get(name);
    if (!value) throw new Error(`storage credentials printed no ${name}:\n${output}`);
    return value;
  };
  return { endpoint: need("endpoint"), region: need("region"), accessKeyId: need("access_key_id"), secretAccessKey: need("secret_access_key") };
}

/** What the global setup hands every test file: the running server and the keys it serves with. */
export type ClientsStore = { origin: string; credentials: StoreCredentials };

declare module "vitest" {
  export interface ProvidedContext {
    clientsStore: ClientsStore;
  }
}

/**
 * Starts the build on the embedded default with a data dir of its own in `work`. EASEL_PUBLIC_URL
 * is the server's own address, so the endpoint `storage credentials` prints is the one the tools
 * reach. The command runs with the server's environment on its data dir just before the server
 * takes the dir: through a running server's socket, a CLI query in the server's first seconds
 * can fail ("unnamed prepared statement does not exist"), which is not what this suite tests.
 * EASEL_LOG_LEVEL passes through (debug logs each store request).
 */
export async function startClientsServer(work: string): Promise<{ node: EaselNode; store: ClientsStore }> {
  const appDir = builtAppDir();
  const port = await freePort();
  const env = {
    EASEL_DATA_DIR: path.join(work, "data"),
    EASEL_PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: undefined,
    TEST_DATABASE_URL: undefined,
    EASEL_S3_BUCKET: undefined,
    EASEL_GCS_BUCKET: undefined,
  };
  const credentials = parseCredentials(await easel(env, "storage", "credentials"));
  const node = startNode(appDir, env, port);
  try {
    await waitFor200(node);
  } catch (err) {
    await stopNode(node);
    throw err;
  }
  return { node, store: { origin: node.origin, credentials } };
}

/** A temp dir of a test file's own (tool homes and configs, local trees), removed by the returned function. */
export async function fileWorkDir(tag: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), `easel-clients-${tag}-`));
  return { dir, remove: () => fs.promises.rm(dir, { recursive: true, force: true }) };
}

export type ToolResult = { code: number | null; stdout: string; stderr: string };

/**
 * Runs a tool with only the environment given (plus PATH and a UTF-8 locale): no AWS_* or config
 * of this machine's user reaches it. `stdinFile` is piped to its stdin.
 */
export function runTool(bin: string, args: string[], env: Record<string, string>, stdinFile?: string): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const toolEnv = { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", LC_ALL: "C.UTF-8", ...env } as unknown as NodeJS.ProcessEnv;
    const child = spawn(bin, args, { env: toolEnv, stdio: [stdinFile ? "pipe" : "ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (stdinFile) fs.createReadStream(stdinFile).on("error", reject).pipe(child.stdin!);
  });
}

/** A failed command's message carries everything the tool said. */
export function describeRun(bin: string, args: string[], r: ToolResult): string {
  return `${path.basename(bin)} ${args.join(" ")} exited ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

export type Tool = {
  bin: string;
  run: (...args: string[]) => Promise<ToolResult>;
  /** Runs and expects exit 0; a failure shows the command and all its output. */
  ok: (...args: string[]) => Promise<ToolResult>;
  /** As `ok`, with `file` piped to the tool's stdin. */
  okWithStdin: (file: string, ...args: string[]) => Promise<ToolResult>;
};

/** A tool bound to its environment and leading arguments (config file, endpoint). */
export function boundTool(bin: string, env: Record<string, string>, leading: string[] = []): Tool {
  const expectOk = async (args: string[], stdinFile?: string) => {
    const r = await runTool(bin, [...leading, ...args], env, stdinFile);
    expect(r.code, describeRun(bin, [...leading, ...args], r)).toBe(0);
    return r;
  };
  return {
    bin,
    run: (...args) => runTool(bin, [...leading, ...args], env),
    ok: (...args) => expectOk(args),
    okWithStdin: (file, ...args) => expectOk(args, file),
  };
}

/** Bytes from a seeded generator: the same file on every run, incompressible. */
export async function writeFileOfSize(file: string, bytes: number, seed: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const out = fs.createWriteStream(file);
  let block = crypto.createHash("sha512").update(seed).digest();
  for (let written = 0; written < bytes; ) {
    const size = Math.min(MiB, bytes - written);
    // A fresh MiB per step: stretch the seed with a keyed stream cipher rather than hashing every 64 bytes.
    const cipher = crypto.createCipheriv("aes-256-ctr", block.subarray(0, 32), block.subarray(32, 48));
    const chunk = cipher.update(Buffer.alloc(size));
    block = crypto.createHash("sha512").update(block).digest();
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
    written += size;
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

export async function md5OfFile(file: string): Promise<string> {
  const hash = crypto.createHash("md5");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Every file under `root` (relative paths, "/"-separated, sorted) with its md5. */
export async function treeDigest(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const entries = await fs.promises.readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(root, full).split(path.sep).join("/")] = await md5OfFile(full);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The names a real tree has: spaces, accents, CJK, an emoji, nested folders, an empty file. Every
 * file's content is its own name, so a file stored under another name reads back wrong.
 */
export const SMALL_FILES = ["hello.txt", "with space.txt", "docs/ünïcødé résumé.md", "docs/日本語 ファイル.txt", "emoji 🎨/palette.json", "deep/a/b/c/d.txt", "empty.txt"];

export async function writeSmallFiles(root: string, names = SMALL_FILES): Promise<void> {
  for (const name of names) {
    const file = path.join(root, name);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await fs.promises.writeFile(file, name === "empty.txt" ? "" : `${name}\n`);
  }
}

/** The store's own answer for a key (the SDK, signed with the same keys): a multipart object's ETag ends in `-<parts>`. */
export async function headStoredObject(credentials: StoreCredentials, bucket: string, key: string) {
  const s3 = new S3Client({
    endpoint: credentials.endpoint,
    region: credentials.region,
    forcePathStyle: true,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
  });
  try {
    return await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  } finally {
    s3.destroy();
  }
}

/** A bucket name of this run's own (S3 rules: lowercase letters, digits, hyphens). */
export const bucketName = (tool: string) => `${tool}-${crypto.randomBytes(4).toString("hex")}`;
