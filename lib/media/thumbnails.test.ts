import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageSource, MAX_VECTOR_BYTES, renderThumbnails } from "./image-work.mjs";

// An uploaded SVG is rendered to JPEG thumbnails by sharp (librsvg). It must load nothing beyond
// the document: no URL (which would let an upload make the server fetch), no file beside it or
// elsewhere on disk (which would put the server's files into a thumbnail).
let server: http.Server;
let origin: string;
const fetched: string[] = [];
let dir: string;
let red: Buffer;

beforeAll(async () => {
  red = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#ff0000" } }).png().toBuffer();
  server = http.createServer((req, res) => {
    fetched.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/png" }).end(red);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-thumbs-"));
  fs.writeFileSync(path.join(dir, "beside.png"), red);
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

const redPixels = async (jpeg: Buffer) => {
  const { data } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let i = 0; i < data.length; i += 3) if (data[i] > 200 && data[i + 1] < 90 && data[i + 2] < 90) n++;
  return n;
};

describe("SVG thumbnails", () => {
  it("are JPEGs rendered without loading any URL or file the document names", async () => {
    const file = path.join(dir, "original");
    fs.writeFileSync(
      file,
      `\ufeff<?xml version="1.0"?><?xml-stylesheet href="${origin}/sheet.css"?>
      <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="90" height="30" onload="fetch('${origin}/onload')">
        <style>@import url(${origin}/import.css);</style>
        <script>fetch('${origin}/script')</script>
        <rect width="90" height="30" fill="#0000ff"/>
        <image href="${origin}/remote.png" x="0" width="30" height="30"/>
        <image xlink:href="beside.png" x="30" width="30" height="30"/>
        <image xlink:href="file://${path.join(dir, "beside.png")}" x="60" width="30" height="30"/>
      </svg>`,
    );
    const source = await imageSource(file);
    expect(Buffer.isBuffer(source)).toBe(true);
    const thumbs = await renderThumbnails(source!);
    expect(thumbs.map((t) => t.size)).toEqual(["small", "medium", "large"]);
    for (const t of thumbs) {
      expect((await sharp(t.body).metadata()).format).toBe("jpeg");
      expect(await redPixels(t.body)).toBe(0); // none of the three red images was loaded
    }
    expect(fetched).toEqual([]);
  });

  it("reads raster files from their path, and renders no vector image above the size limit", async () => {
    const png = path.join(dir, "raster");
    fs.writeFileSync(png, red);
    expect(await imageSource(png)).toBe(png);
    const huge = path.join(dir, "huge");
    fs.writeFileSync(huge, Buffer.concat([Buffer.from("<svg>"), Buffer.alloc(MAX_VECTOR_BYTES, 0x20)]));
    expect(await imageSource(huge)).toBeNull();
  });
});
