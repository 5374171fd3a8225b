/**
 * `npm run bench -- client`: the `easel-client` command against the baselines, side by side in one
 * run, on one server (this checkout's build started as `npm start` starts it, a data dir of its
 * own, the embedded store, an s3 workspace):
 *
 * 1. One large file (default 1 GiB): `easel-client upload` (a new process each time: start-up,
 *    the md5 read, the duplicate lookup, prepare, parallel parts, complete) against the direct path
 *    of bench/upload (this process: prepare, part PUTs streamed from the file with node:http,
 *    complete) and against Debian's `aws s3 cp` to a bucket of the same embedded store. Goal:
 *    easel-client ≥ 0.9 × the direct path.
 * 2. Many small files (default 1,000 of 10 KiB): `easel-client upload --recursive` against
 *    `aws s3 cp --recursive`, in files per second.
 *
 *   npm run bench -- client [--size-mib 1024] [--files 1000] [--file-kib 10] [--runs 3] [--concurrency 4] [--dir DIR]
 *
 * Each contender runs `--runs` times in turn (order rotated per run); medians are compared. Every
 * upload is new content to the server (the asset of a run is deleted before the next, so the
 * command never skips it as a duplicate). The API rate limit is raised for the server (an
 * operator setting, EASEL_RATE_LIMIT_PER_MIN): 1,000 files are ~3,000 API calls.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { api, builtAppDir, cli, freePort, repoRoot, startNode, stopNode, waitFor200 } from "../scale/cluster";

const args = parseArgs(process.argv.slice(2));
const MiB = 1024 * 1024;
const SIZE = Number(args["size-mib"] ?? 1024) * MiB;
const FILES = Number(args.files ?? 1000);
const FILE_BYTES = Number(args["file-kib"] ?? 10) * 1024;
const RUNS = Number(args.runs ?? 3);
const CONCURRENCY = Number(args.concurrency ?? 4);
const AWS = "/usr/bin/aws";
const CLIENT_BIN = path.join(repoRoot, "packages/client/bin/easel-client.js");

function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) out[argv[i].replace(/^--/, "")] = argv[++i];
  return out;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const load = () => os.loadavg()[0].toFixed(2);

function run(bin: string, argv: string[], env: NodeJS.ProcessEnv): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, argv, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve({ seconds: (performance.now() - started) / 1000, stdout }) : reject(new Error(`${path.basename(bin)} ${argv.join(" ")} exited ${code}\n${stdout}\n${stderr}`))));
  });
}

/** The direct path of bench/upload: part PUTs streamed from the file with node:http, CONCURRENCY at a time. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function putPart(url: string, file: string, start: number, end: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "PUT", agent, headers: { "content-length": end - start + 1 } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`part PUT answered ${res.statusCode}`))));
    });
    req.on("error", reject);
    fs.createReadStream(file, { start, end, highWaterMark: MiB }).pipe(req);
  });
}

async function main() {
  const appDir = builtAppDir();
  const dir = args.dir ? path.resolve(args.dir) : fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-client-"));
  const port = await freePort();
  // EASEL_PUBLIC_URL is the server's own address, so the endpoint `storage credentials` prints is the one aws-cli reaches.
  const env = { EASEL_DATA_DIR: path.join(dir, "easel-data"), EASEL_JOBS_DISABLED: "1", EASEL_RATE_LIMIT_PER_MIN: "10000000", DATABASE_URL: undefined, EASEL_PUBLIC_URL: `http://127.0.0.1:${port}` };
  // The store's keys for aws-cli, read as an operator does, before the server takes the data dir.
  const creds = Object.fromEntries(
    (await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", "storage", "credentials"], { cwd: repoRoot, env: { ...process.env, ...env } as NodeJS.ProcessEnv }, (e, out, err) => (e ? reject(new Error(err || e.message)) : resolve(out))),
    ))
      .split("\n")
      .map((l) => /^(\w+): (.+)$/.exec(l.trim()))
      .filter((m) => m !== null)
      .map((m) => [m[1], m[2]]),
  );
  const node = startNode(appDir, env, port);
  try {
    await waitFor200(node);
    await cli(env, "workspace", "create", "bench", "--plan", "enterprise", "--storage", "s3");
    const token = await cli(env, "token", "create", "bench", "--scopes", "read,write");
    const call = async (method: string, p: string, body?: unknown) => (await api(node.origin, token, method, `/v1/bench${p}`, body)).body?.data ?? {};

    const awsHome = path.join(dir, "aws-home");
    fs.mkdirSync(awsHome, { recursive: true });
    fs.writeFileSync(
      path.join(awsHome, "config"),
      `[default]\nregion = ${creds.region}\nmax_attempts = 1\ns3 =\n  addressing_style = path\n  multipart_threshold = 8MB\n  multipart_chunksize = 8MB\n  max_concurrent_requests = ${CONCURRENCY}\n`,
    );
    fs.writeFileSync(path.join(awsHome, "credentials"), `[default]\naws_access_key_id = ${creds.access_key_id}\naws_secret_access_key = ${creds.secret_access_key}\n`);
    const awsEnv = { PATH: "/usr/bin:/bin", HOME: awsHome, AWS_CONFIG_FILE: path.join(awsHome, "config"), AWS_SHARED_CREDENTIALS_FILE: path.join(awsHome, "credentials"), AWS_EC2_METADATA_DISABLED: "true", AWS_PAGER: "" } as unknown as NodeJS.ProcessEnv;
    const aws = (...a: string[]) => run(AWS, ["--endpoint-url", creds.endpoint, ...a], awsEnv);
    await aws("s3", "mb", "s3://bench-aws");
    const clientEnv = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: path.join(dir, "state"), EASEL_URL: node.origin, EASEL_TOKEN: token } as unknown as NodeJS.ProcessEnv;
    const easelClient = (...a: string[]) => run(process.execPath, [CLIENT_BIN, ...a], clientEnv);

    console.log(`bench/client: ${(SIZE / MiB).toFixed(0)} MiB file, ${FILES} files of ${FILE_BYTES / 1024} KiB, ${RUNS} runs, concurrency ${CONCURRENCY}, ${os.cpus().length} cores, load ${load()}`);
    // ---- one large file
    const source = path.join(dir, "large.bin");
    const fd = fs.openSync(source, "w");
    const block = Buffer.alloc(8 * MiB);
    for (let written = 0; written < SIZE; written += block.length) {
      crypto.randomFillSync(block);
      fs.writeSync(fd, block, 0, Math.min(block.length, SIZE - written));
    }
    fs.closeSync(fd);
    const contenders: Record<string, () => Promise<number>> = {
      direct: async () => {
        const started = performance.now();
        const prepared = await call("POST", "/assets/upload_prepare", { asset: { title: "direct", media_type: "application/octet-stream", size: SIZE } });
        const urls = prepared.part_urls as string[];
        const partSize = prepared.part_size as number;
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < urls.length) {
              const i = next++;
              await putPart(urls[i], source, i * partSize, Math.min(SIZE, (i + 1) * partSize) - 1);
            }
          }),
        );
        const asset = await call("POST", "/assets/upload_complete", { asset: { signed_storage_id: prepared.signed_storage_id, multipart_upload_id: prepared.multipart_upload_id } });
        const seconds = (performance.now() - started) / 1000;
        await call("DELETE", `/assets/${String(asset.token)}`);
        return seconds;
      },
      "easel-client": async () => {
        const { seconds, stdout } = await easelClient("upload", source, "--workspace", "bench", "--concurrency", String(CONCURRENCY));
        const [status, , assetToken] = stdout.trim().split(" ");
        if (status !== "uploaded") throw new Error(`easel-client did not upload: ${stdout}`);
        await call("DELETE", `/assets/${assetToken}`);
        return seconds;
      },
      "aws s3 cp": async () => (await aws("s3", "cp", "--only-show-errors", source, `s3://bench-aws/large-${crypto.randomUUID()}`)).seconds,
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
    const names = Object.keys(contenders);
    for (let r = 0; r < RUNS; r++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + r) % names.length];
        execFileSync("sync");
        const seconds = await contenders[name]();
        times[name].push(seconds);
        console.log(`  run ${r + 1} ${name.padEnd(12)} ${seconds.toFixed(2)} s  ${(SIZE / MiB / seconds).toFixed(0)} MiB/s  (load ${load()})`);
      }
    }
    const mibps = (name: string) => SIZE / MiB / median(times[name]);
    console.log(`\n${(SIZE / MiB).toFixed(0)} MiB, medians:`);
    for (const name of names) console.log(`  ${name.padEnd(12)} ${mibps(name).toFixed(0)} MiB/s  = ${(mibps(name) / mibps("direct")).toFixed(2)} x direct`);
    console.log(`  goal: easel-client >= 0.90 x direct: ${mibps("easel-client") / mibps("direct") >= 0.9 ? "met" : "NOT met"}`);
    fs.rmSync(source);

    // ---- many small files
    const tree = path.join(dir, "small");
    const filesPerSec: Record<string, number[]> = { "easel-client": [], "aws s3 cp": [] };
    for (let r = 0; r < RUNS; r++) {
      fs.rmSync(tree, { recursive: true, force: true });
      for (let i = 0; i < FILES; i++) {
        const f = path.join(tree, `d${i % 10}`, `f${i}.bin`);
        fs.mkdirSync(path.dirname(f), { recursive: true });
        fs.writeFileSync(f, crypto.randomBytes(FILE_BYTES));
      }
      execFileSync("sync");
      const order = r % 2 === 0 ? ["easel-client", "aws s3 cp"] : ["aws s3 cp", "easel-client"];
      for (const name of order) {
        const seconds =
          name === "aws s3 cp"
            ? (await aws("s3", "cp", "--recursive", "--only-show-errors", tree, `s3://bench-aws/small-${r}/`)).seconds
            : await (async () => {
                const out = await easelClient("upload", tree, "--recursive", "--workspace", "bench", "--concurrency", String(CONCURRENCY));
                const uploaded = out.stdout.split("\n").filter((l) => l.startsWith("uploaded ")).length;
                if (uploaded !== FILES) throw new Error(`easel-client uploaded ${uploaded} of ${FILES}`);
                return out.seconds;
              })();
        filesPerSec[name].push(FILES / seconds);
        console.log(`  run ${r + 1} ${name.padEnd(12)} ${FILES} files in ${seconds.toFixed(2)} s = ${(FILES / seconds).toFixed(0)} files/s  (load ${load()})`);
      }
    }
    const fps = (name: string) => median(filesPerSec[name]);
    console.log(`\n${FILES} files of ${FILE_BYTES / 1024} KiB, medians:`);
    console.log(`  easel-client ${fps("easel-client").toFixed(0)} files/s = ${(fps("easel-client") / fps("aws s3 cp")).toFixed(2)} x aws s3 cp (${fps("aws s3 cp").toFixed(0)} files/s)`);
  } finally {
    agent.destroy();
    await stopNode(node);
    if (!args.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
