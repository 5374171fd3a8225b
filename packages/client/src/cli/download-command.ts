import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { EaselClient } from "../client";
import { EaselError } from "../errors";
import { createMd5 } from "../md5";
import type { Connection } from "./usage";

/**
 * The file a download is written to without `-o`: the title's last part, in the current folder. A
 * title is anyone's text, so one that names no file here ("", ".", "..", "/") gives the asset token.
 */
export function fileNameOf(title: string, assetToken: string): string {
  const name = path.basename(title.replace(/\\/g, "/"));
  return name === "" || name === "." || name === ".." ? assetToken : name;
}

/** `easel-client download`: the original bytes to `-o FILE` (default: the title, in the current folder), md5-checked. */
export async function downloadCommand(client: EaselClient, conn: Connection, opts: { asset: string; version?: number; output?: string }, signal: AbortSignal): Promise<number> {
  // A signed one-hour link to the original, with the md5 and size the bytes must have.
  const { data: link } = await client.getDownloadLink({ path: { slug: conn.workspace, token: opts.asset }, query: opts.version === undefined ? {} : { version: String(opts.version) }, signal });
  const expected = { md5: link.md5, size: link.size, title: link.title };
  const response = await client.fetchWithRetry(() => new Request(link.url, { signal }), signal);
  if (!response.ok || !response.body) throw new EaselError(response.status, "download_failed", `the media link answered HTTP ${response.status}`);
  const target = opts.output ?? fileNameOf(expected.title, opts.asset);
  const temp = `${target}.easel-download`;
  const md5 = await createMd5();
  let size = 0;
  const body = Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    md5.update(chunk);
    size += chunk.byteLength;
  });
  await pipeline(body, fs.createWriteStream(temp), { signal });
  const got = md5.hex();
  if (got !== expected.md5 || size !== expected.size) {
    await fs.promises.rm(temp, { force: true });
    // The head's link follows the head: a version written during the download changes the bytes.
    throw new EaselError(0, "checksum_mismatch", `downloaded ${size} bytes with md5 ${got}; version ${link.version_number} has ${expected.size} bytes with md5 ${expected.md5} (if the asset changed meanwhile, run again)`);
  }
  await fs.promises.rename(temp, target);
  process.stdout.write(`downloaded ${opts.asset} ${target}\n`);
  return 0;
}
