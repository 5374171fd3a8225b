/**
 * `easel-client upload` against the built server, on a workspace of each storage kind: a folder
 * (20 files and a sub-folder, and one 60 MiB file) in one command; the same command again skips
 * every file and sends nothing; a run killed with SIGKILL in the middle of a 60 MiB file, run
 * again, sends only what storage lacked and makes exactly one asset. Bytes sent are read from
 * the server's own counter (easel_upload_bytes_received_total on /metrics).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient } from "../../packages/client/src/index";
import { md5OfFile, writeFileOfSize } from "../clients/clients";
import { exited } from "../helpers/child-process";
import { describeRun, outcomeLines, runCli, spawnCli, type CliEnv } from "./run-cli";
import { uploadBytesReceived, type StorageKind } from "./server";
import { startThrottleProxy } from "./throttle-proxy";

const MiB = 1024 * 1024;
const BIG = 60 * MiB;
const server = inject("clientServer");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(["s3", "gcs"] as const)("easel-client upload on a %s workspace", (kind: StorageKind) => {
  const { slug, token } = server.workspaces[kind];
  const client = createClient({ baseUrl: server.origin, token });
  let work: string;
  let env: CliEnv;

  beforeAll(async () => {
    work = await fs.promises.mkdtemp(path.join(os.tmpdir(), `easel-client-upload-${kind}-`));
    env = { url: server.origin, token, stateHome: path.join(work, "state") };
  });
  afterAll(async () => {
    await fs.promises.rm(work, { recursive: true, force: true });
  });

  const assetsWithMd5 = async (md5: string) => (await client.listAssets({ path: { slug }, query: { md5, per_page: "100" } })).data;

  it("uploads a folder in one command, then skips every file and sends nothing when run again", async () => {
    const root = path.join(work, "album");
    const files: string[] = [];
    for (let i = 0; i < 20; i++) {
      const rel = i < 12 ? `note-${i}.txt` : `sub/deeper-${i}.txt`;
      await fs.promises.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await fs.promises.writeFile(path.join(root, rel), `${kind} file ${i} ${crypto.randomUUID()}\n`.repeat(1 + i * 50));
      files.push(path.join(root, rel));
    }
    await writeFileOfSize(path.join(root, "big.bin"), BIG, `${kind}-folder-big`);
    files.push(path.join(root, "big.bin"));
    const sizes = await Promise.all(files.map(async (f) => (await fs.promises.stat(f)).size));
    const total = sizes.reduce((a, b) => a + b, 0);

    const args = ["upload", root, "--workspace", slug, "--recursive"];
    const before = await uploadBytesReceived(server);
    const first = await runCli(env, args);
    expect(first.code, describeRun(args, first)).toBe(0);
    const sent = (await uploadBytesReceived(server)) - before;
    const lines = outcomeLines(first.stdout);
    expect(lines.map(([status, file]) => [status, file]).sort()).toEqual(files.map((f) => ["uploaded", f]).sort());
    // Every byte went to storage once (a retried part could add more, never less).
    expect(sent).toBeGreaterThanOrEqual(total);
    for (const [i, file] of files.entries()) {
      const found = await assetsWithMd5(await md5OfFile(file));
      expect(found.map((a) => a.token)).toEqual([lines.find(([, f]) => f === file)![2]]);
      expect(found[0].size).toBe(sizes[i]);
    }

    const again = await runCli(env, [...args, "--json"]);
    expect(again.code, describeRun(args, again)).toBe(0);
    expect((await uploadBytesReceived(server)) - before - sent).toBe(0);
    const skipped = again.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(skipped.map((o) => [o.status, o.path, o.asset_token]).sort()).toEqual(lines.map(([, file, t]) => ["skipped", file, t]).sort());
    for (const file of files) expect(await assetsWithMd5(await md5OfFile(file))).toHaveLength(1);
  });

  it("continues a run killed with SIGKILL in the middle of a 60 MiB file: fewer bytes than the file, one asset", async () => {
    const file = path.join(work, "killed", "movie.bin");
    await writeFileOfSize(file, BIG, `${kind}-killed-${crypto.randomUUID()}`);
    const md5 = await md5OfFile(file);
    // 30 MiB/s through a proxy: the upload takes about two seconds, long enough to stop it midway.
    const proxy = await startThrottleProxy(server.origin, 30 * MiB);
    try {
      const proxied = { ...env, url: proxy.origin };
      const args = ["upload", file, "--workspace", slug];
      const before = await uploadBytesReceived(server);
      const run = spawnCli(proxied, args);
      let stored = 0;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(25)) {
        stored = (await uploadBytesReceived(server)) - before;
        if (stored >= 8 * MiB || run.child.exitCode !== null) break;
      }
      run.child.kill("SIGKILL");
      await exited(run.child);
      const killed = await run.done;
      expect(killed.signal, describeRun(args, killed)).toBe("SIGKILL");
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan(BIG);
      expect(await assetsWithMd5(md5)).toHaveLength(0);

      proxy.setRate(Infinity);
      const resumedFrom = await uploadBytesReceived(server);
      const again = await runCli(proxied, args);
      expect(again.code, describeRun(args, again)).toBe(0);
      const resent = (await uploadBytesReceived(server)) - resumedFrom;
      expect(resent).toBeGreaterThan(0);
      expect(resent).toBeLessThan(BIG);
      const assets = await assetsWithMd5(md5);
      expect(assets).toHaveLength(1);
      expect(assets[0].size).toBe(BIG);
      expect(outcomeLines(again.stdout)).toEqual([["uploaded", file, assets[0].token]]);
      // Its state is gone once the upload finished: a third run finds the asset by md5.
      const third = await runCli(proxied, args);
      expect(outcomeLines(third.stdout)).toEqual([["skipped", file, assets[0].token]]);
    } finally {
      await proxy.close();
    }
  });
});

// One storage kind is enough here: what these check (hashing on the way, the check before
// completion, Ctrl-C) is the command's, not the storage kind's transfer.
describe("easel-client upload: large files and Ctrl-C", () => {
  const kind = "s3";
  const { slug, token } = server.workspaces[kind];
  const client = createClient({ baseUrl: server.origin, token });
  let work: string;
  let env: CliEnv;
  beforeAll(async () => {
    work = await fs.promises.mkdtemp(path.join(os.tmpdir(), "easel-client-large-"));
    env = { url: server.origin, token, stateHome: path.join(work, "state") };
  });
  afterAll(async () => {
    await fs.promises.rm(work, { recursive: true, force: true });
  });
  const assetsWithMd5 = async (md5: string) => (await client.listAssets({ path: { slug }, query: { md5, per_page: "100" } })).data;

  it("hashes a file of 64 MiB and more while it uploads, and still makes no second asset of its content", async () => {
    const first = path.join(work, "large", "a.bin");
    await writeFileOfSize(first, 65 * MiB, `${kind}-large-${crypto.randomUUID()}`);
    const md5 = await md5OfFile(first);
    const up = await runCli(env, ["upload", first, "--workspace", slug]);
    expect(up.code, describeRun(["upload"], up)).toBe(0);
    const [asset] = await assetsWithMd5(md5);
    expect(outcomeLines(up.stdout)).toEqual([["uploaded", first, asset.token]]);

    // Run again: its md5 was remembered, so it is checked before any byte is sent.
    let before = await uploadBytesReceived(server);
    const again = await runCli(env, ["upload", first, "--workspace", slug]);
    expect(outcomeLines(again.stdout)).toEqual([["skipped", first, asset.token]]);
    expect((await uploadBytesReceived(server)) - before).toBe(0);

    // A copy no run has seen: its bytes go up while it is hashed, and it is found a duplicate before completion.
    const copy = path.join(work, "large", "copy.bin");
    await fs.promises.copyFile(first, copy);
    before = await uploadBytesReceived(server);
    const copied = await runCli(env, ["upload", copy, "--workspace", slug]);
    expect(copied.code, describeRun(["upload"], copied)).toBe(0);
    expect(outcomeLines(copied.stdout)).toEqual([["skipped", copy, asset.token]]);
    expect((await uploadBytesReceived(server)) - before).toBeLessThanOrEqual(65 * MiB);
    expect(await assetsWithMd5(md5)).toHaveLength(1);
  });

  it("stops on Ctrl-C (SIGINT) with a failed line and exit 1, and the same command continues the upload", async () => {
    const file = path.join(work, "interrupted", "take.bin");
    await writeFileOfSize(file, 40 * MiB, `${kind}-sigint-${crypto.randomUUID()}`);
    const md5 = await md5OfFile(file);
    const proxy = await startThrottleProxy(server.origin, 20 * MiB);
    try {
      const proxied = { ...env, url: proxy.origin };
      const args = ["upload", file, "--workspace", slug];
      const before = await uploadBytesReceived(server);
      const run = spawnCli(proxied, args);
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(25)) {
        if ((await uploadBytesReceived(server)) - before >= 8 * MiB || run.child.exitCode !== null) break;
      }
      run.child.kill("SIGINT");
      const stopped = await run.done;
      expect(stopped.code, describeRun(args, stopped)).toBe(1);
      expect(outcomeLines(stopped.stdout)[0].slice(0, 3)).toEqual(["failed", file, "aborted"]);
      expect(await assetsWithMd5(md5)).toHaveLength(0);

      proxy.setRate(Infinity);
      const resumedFrom = await uploadBytesReceived(server);
      const again = await runCli(proxied, args);
      expect(again.code, describeRun(args, again)).toBe(0);
      expect((await uploadBytesReceived(server)) - resumedFrom).toBeLessThan(40 * MiB);
      expect(await assetsWithMd5(md5)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
