/**
 * The library (Node entry) and the command's other verbs against the built server: uploads on
 * both storage kinds from a path, a Blob and a stream; the listings' md5 filter; errors as
 * EaselError; a board upload, a version write, `versions`, `revert` and `download` (also of an
 * image on no board, through the API's download link).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient, EaselError, uploadFile } from "../../packages/client/src/index";
import { md5OfFile, writeFileOfSize } from "../clients/clients";
import { describeRun, outcomeLines, runCli, type CliEnv } from "./run-cli";

const MiB = 1024 * 1024;
const server = inject("clientServer");
const md5 = (b: Uint8Array) => crypto.createHash("md5").update(b).digest("hex");

let work: string;
beforeAll(async () => {
  work = await fs.promises.mkdtemp(path.join(os.tmpdir(), "easel-client-library-"));
});
afterAll(async () => {
  await fs.promises.rm(work, { recursive: true, force: true });
});

describe.each(["s3", "gcs"] as const)("uploadFile on a %s workspace", (kind) => {
  const { slug, token } = server.workspaces[kind];
  const client = createClient({ baseUrl: server.origin, token });

  it("uploads from a path, a Blob and a stream, each md5-checked, onto a board", async () => {
    const board = (await client.createBoard({ path: { slug }, body: { board: { title: `library ${kind}` } } })).data.token;
    const file = path.join(work, `${kind}-path.bin`);
    await writeFileOfSize(file, 9 * MiB + 17, `${kind}-path`);
    const progress: number[] = [];
    const fromPath = await uploadFile(client, { workspace: slug, file, board, onProgress: (sent) => progress.push(sent) });
    expect(fromPath).toMatchObject({ title: `${kind}-path.bin`, size: 9 * MiB + 17, md5: await md5OfFile(file), boards: [board] });
    expect(progress.at(-1)).toBe(9 * MiB + 17);

    const small = crypto.randomBytes(4000);
    const fromBlob = await uploadFile(client, { workspace: slug, blob: new Blob([small], { type: "text/plain" }), title: "small" });
    expect(fromBlob).toMatchObject({ title: "small", size: 4000, md5: md5(small), boards: [] });

    const streamed = fs.createReadStream(file, { highWaterMark: 100_000 });
    const fromStream = await uploadFile(client, { workspace: slug, stream: streamed, size: 9 * MiB + 17, title: "streamed", md5: await md5OfFile(file) });
    expect(fromStream.md5).toBe(fromPath.md5);
    expect(fromStream.token).not.toBe(fromPath.token);

    // The md5 filter: exactly the assets with that content, in the workspace and on a board.
    const listed = await client.listAssets({ path: { slug }, query: { md5: fromPath.md5.toUpperCase() } });
    expect(listed.data.map((a) => a.token).sort()).toEqual([fromPath.token, fromStream.token].sort());
    const onBoard = await client.listBoardAssets({ path: { slug, boardToken: board }, query: { md5: fromPath.md5 } });
    expect(onBoard.data.map((a) => a.token)).toEqual([fromPath.token]);
    expect((await client.listBoardAssets({ path: { slug, boardToken: board }, query: { md5: fromBlob.md5 } })).data).toEqual([]);
  });

  it("throws EaselError with the API's status, code and extensions", async () => {
    const bad = await client.listAssets({ path: { slug }, query: { md5: "not-an-md5" } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(EaselError);
    expect(bad).toMatchObject({ status: 422, code: "validation_failed", extensions: { field: "md5" } });
    const unknownToken = createClient({ baseUrl: server.origin, token: "easel_nope", retry: { retries: 0 } });
    await expect(unknownToken.listAssets({ path: { slug } })).rejects.toMatchObject({ status: 401, code: "unauthenticated" });
    await expect(client.getAsset({ path: { slug, token: "no-such-asset" } })).rejects.toMatchObject({ status: 404, code: "asset_not_found" });
  });
});

describe("easel-client download, versions, revert", () => {
  const { slug, token } = server.workspaces.s3;
  const client = createClient({ baseUrl: server.origin, token });

  it("lists versions, reverts, and downloads the head and a version, md5-checked", async () => {
    const env: CliEnv = { url: server.origin, token, stateHome: path.join(work, "state") };
    const board = (await client.createBoard({ path: { slug }, body: { board: { title: "versions" } } })).data.token;
    const v1 = path.join(work, "v1.txt");
    await fs.promises.writeFile(v1, `first ${crypto.randomUUID()}\n`);
    const up = await runCli(env, ["upload", v1, "--workspace", slug, "--board", board]);
    expect(up.code, describeRun(["upload"], up)).toBe(0);
    const [[status, , assetToken]] = outcomeLines(up.stdout);
    expect(status).toBe("uploaded");

    // A version write through the library's typed calls: prepare, PUT, PATCH with the signed id.
    const second = new TextEncoder().encode(`second ${crypto.randomUUID()}\n`);
    const prepared = (await client.prepareUpload({ path: { slug }, body: { asset: { media_type: "text/plain", size: second.length } } })).data;
    expect((await fetch(prepared.upload_url, { method: "PUT", body: second })).status).toBe(200);
    const patched = await client.updateAsset({ path: { slug, token: assetToken }, body: { asset: { signed_storage_id: prepared.signed_storage_id, comment: "before the second" } } });
    expect(patched.head_version_number).toBe(2);

    const versions = await runCli(env, ["versions", assetToken, "--workspace", slug]);
    expect(versions.code, describeRun(["versions"], versions)).toBe(0);
    const rows = versions.stdout.trim().split("\n").map((l) => l.split("\t"));
    expect(rows).toHaveLength(1);
    expect(rows[0].slice(0, 2)).toEqual(["1", "UPLOAD"]);
    expect(rows[0][4]).toBe(await md5OfFile(v1));

    const head = path.join(work, "head.txt");
    const got = await runCli(env, ["download", assetToken, "--workspace", slug, "-o", head]);
    expect(got.code, describeRun(["download"], got)).toBe(0);
    expect(await fs.promises.readFile(head)).toEqual(Buffer.from(second));
    const old = path.join(work, "old.txt");
    expect((await runCli(env, ["download", assetToken, "--workspace", slug, "--version", "1", "-o", old])).code).toBe(0);
    expect(await fs.promises.readFile(old, "utf8")).toBe(await fs.promises.readFile(v1, "utf8"));

    const reverted = await runCli(env, ["revert", assetToken, "1", "--workspace", slug, "--comment", "back", "--json"]);
    expect(reverted.code, describeRun(["revert"], reverted)).toBe(0);
    expect(JSON.parse(reverted.stdout)).toMatchObject({ head_version_number: 3, data: { md5: await md5OfFile(v1) } });
  });

  it.each(["s3", "gcs"] as const)("downloads an image on no board from a %s workspace, and names a missing version", async (kind) => {
    const ws = server.workspaces[kind];
    const kindClient = createClient({ baseUrl: server.origin, token: ws.token });
    const env: CliEnv = { url: server.origin, token: ws.token, stateHome: path.join(work, "state") };
    const png = await sharp({ create: { width: 1600, height: 900, channels: 3, background: { r: 200, g: 40, b: Math.floor(Math.random() * 255) } } }).png().toBuffer();
    const file = path.join(work, `${kind}-loose.png`);
    await fs.promises.writeFile(file, png);
    const up = await runCli(env, ["upload", file, "--workspace", ws.slug]);
    expect(up.code, describeRun(["upload"], up)).toBe(0);
    const [[, , assetToken]] = outcomeLines(up.stdout);
    // Jobs are off in this tier, so the image keeps no thumbnails; tests/api/download-link.test.ts
    // shows the same link giving the original of a processed image, whose display_url is its thumbnail.
    const asset = await kindClient.getAsset({ path: { slug: ws.slug, token: assetToken } });
    expect(asset.data).toMatchObject({ boards: [], media_type: "image/png" });

    const out = path.join(work, `${kind}-loose-downloaded.png`);
    const got = await runCli(env, ["download", assetToken, "--workspace", ws.slug, "-o", out]);
    expect(got.code, describeRun(["download"], got)).toBe(0);
    expect(got.stdout).toBe(`downloaded ${assetToken} ${out}\n`);
    expect(md5(await fs.promises.readFile(out))).toBe(md5(png));

    const missing = await runCli(env, ["download", assetToken, "--workspace", ws.slug, "--version", "7", "-o", path.join(work, "never.png")]);
    expect(missing.code, describeRun(["download"], missing)).toBe(1);
    expect(missing.stderr).toContain("version_not_found");
    expect(fs.existsSync(path.join(work, "never.png"))).toBe(false);
  });

  it("exits 2 for a usage error and 1 when a file failed, with a failed line", async () => {
    const env: CliEnv = { url: server.origin, token, stateHome: path.join(work, "state") };
    const usage = await runCli(env, ["upload", "--workspace", slug, "--bogus", "x"]);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe("");
    const ok = path.join(work, "fine.txt");
    await fs.promises.writeFile(ok, `fine ${crypto.randomUUID()}\n`);
    const missing = path.join(work, "missing.txt");
    const mixed = await runCli(env, ["upload", missing, work, ok, "--workspace", slug, "--json"]);
    expect(mixed.code, describeRun(["upload"], mixed)).toBe(1);
    const outcomes = mixed.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(outcomes).toEqual(
      expect.arrayContaining([
        { path: missing, status: "failed", asset_token: null, code: "not_found", message: expect.any(String) },
        { path: work, status: "failed", asset_token: null, code: "is_a_folder", message: expect.any(String) },
        { path: ok, status: "uploaded", asset_token: expect.any(String), code: null, message: null },
      ]),
    );
    expect(outcomes).toHaveLength(3);
  });
});
