import zlib from "node:zlib";

/**
 * Hostile files for the media-limit tests. Each is a few hundred bytes or kilobytes that asks a
 * decoder for gigabytes or minutes.
 */

/** librsvg renders the filter at full canvas size: ~1 GiB per 16,000² surface, and minutes of blur. */
export const SVG_FILTER_BOMB = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="16000" height="16000"><filter id="f"><feGaussianBlur stdDeviation="2000"/><feMorphology radius="500"/></filter><rect width="16000" height="16000" fill="red" filter="url(#f)"/></svg>`,
);

/** Little memory, but a morphology of radius 1000 over 2000² pixels runs for minutes. */
export const svgMorphologyBomb = (fill = "red") =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000"><filter id="f"><feMorphology radius="1000"/></filter><rect width="2000" height="2000" fill="${fill}" filter="url(#f)"/></svg>`,
  );

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A PNG of `side`² RGB pixels, all black: its deflate stream of zeros packs `side`² × 3 bytes into
 * about a thousandth of that (16,000² is 768 MB of pixels in under 1 MB of file).
 */
export async function pngDecompressionBomb(side: number): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter method, no interlace
  const row = Buffer.alloc(1 + side * 3); // filter byte 0, then black pixels
  const deflate = zlib.createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (d: Buffer) => parts.push(d));
  const done = new Promise((resolve, reject) => deflate.once("end", resolve).once("error", reject));
  for (let y = 0; y < side; y++) if (!deflate.write(row)) await new Promise((r) => deflate.once("drain", r));
  deflate.end();
  await done;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", Buffer.concat(parts)), chunk("IEND", Buffer.alloc(0))]);
}
