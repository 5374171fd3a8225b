// The image work of processing: measure, colours and thumbnails with sharp (libvips, librsvg).
// Plain JavaScript so that the media child (image-child.mjs) runs it under plain Node.js: it is
// never run inside the server process, where a hostile file could take all its memory.
import fs from "node:fs";
import sharp from "sharp";

/** Largest vector image (SVG, SVGZ) rendered to thumbnails; above it, none are made. */
export const MAX_VECTOR_BYTES = 16 * 1024 * 1024;

/** Longest edge of each thumbnail size; images are never enlarged. */
export const THUMBNAIL_SIZES = /** @type {const} */ ({ small: 160, medium: 480, large: 1280 });

/** @param {Buffer} head */
function isVectorCandidate(head) {
  if (head[0] === 0x1f && head[1] === 0x8b) return true; // gzip: SVGZ
  let text = head;
  if (text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf) text = text.subarray(3);
  // UTF-16 text (with a byte-order mark) is text too: librsvg would parse it as XML.
  if ((text[0] === 0xff && text[1] === 0xfe) || (text[0] === 0xfe && text[1] === 0xff)) return true;
  const first = text.findIndex((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
  return first >= 0 && text[first] === 0x3c; // "<"
}

/**
 * Where sharp should read an uploaded image from. Raster files are read from their path. A text
 * document (SVG or any XML: its first character, after a byte-order mark and white space, is
 * `<`) or gzip data (SVGZ) is read into memory first: rendered from a buffer, librsvg has no base
 * location, so it loads nothing beyond the document itself (no file beside it, never the
 * network, no external entity) and scripts in it never run. null: too large to render.
 * @param {string} file
 * @returns {Promise<string | Buffer | null>}
 */
export async function imageSource(file) {
  const fd = await fs.promises.open(file, "r");
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await fd.read(head, 0, head.length, 0);
    if (!isVectorCandidate(head.subarray(0, bytesRead))) return file;
    const { size } = await fd.stat();
    if (size > MAX_VECTOR_BYTES) return null;
    return await fd.readFile();
  } finally {
    await fd.close();
  }
}

/**
 * JPEG thumbnails of an image (EXIF orientation applied, transparency flattened on white); an SVG comes out as a raster JPEG like any other.
 * @param {string | Buffer} file
 * @returns {Promise<{ size: "small" | "medium" | "large"; body: Buffer; width: number; height: number }[]>}
 */
export async function renderThumbnails(file) {
  const out = [];
  for (const [size, edge] of /** @type {["small" | "medium" | "large", number][]} */ (Object.entries(THUMBNAIL_SIZES))) {
    const { data, info } = await sharp(file, { failOn: "none", limitInputPixels: 268_402_689 })
      .rotate()
      .resize({ width: edge, height: edge, fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: 82, mozjpeg: false })
      .toBuffer({ resolveWithObject: true });
    out.push({ size, body: data, width: info.width, height: info.height });
  }
  return out;
}

/**
 * Width and height as displayed (EXIF orientation applied).
 * @param {string | Buffer} file
 * @returns {Promise<{ width?: number; height?: number }>}
 */
export async function imageSize(file) {
  const meta = await sharp(file, { failOn: "none" }).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  return swap ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
}

/**
 * The plain colour word a person would use for an RGB colour (ai_search matches these).
 * @param {{ r: number; g: number; b: number }} rgb
 * @returns {string}
 */
export function colorName({ r, g, b }) {
  const R = r / 255;
  const G = g / 255;
  const B = b / 255;
  const max = Math.max(R, G, B);
  const min = Math.min(R, G, B);
  const l = (max + min) / 2;
  const d = max - min;
  const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
  if (l < 0.12) return "black";
  if (l > 0.9) return "white";
  if (s < 0.18) return l < 0.3 ? "black" : l > 0.8 ? "white" : "gray";
  let h = 0;
  if (max === R) h = ((G - B) / d) % 6;
  else if (max === G) h = (B - R) / d + 2;
  else h = (R - G) / d + 4;
  h = (h * 60 + 360) % 360;
  if ((h < 45 || h >= 345) && l < 0.35 && h >= 10) return "brown";
  if (h < 15 || h >= 345) return "red";
  if (h < 45) return l < 0.4 ? "brown" : "orange";
  if (h < 70) return "yellow";
  if (h < 170) return "green";
  if (h < 260) return "blue";
  if (h < 290) return "purple";
  return "pink";
}

/**
 * Up to two colour words for an image: its dominant colour and its average colour.
 * @param {string | Buffer} file
 * @returns {Promise<string[]>}
 */
export async function dominantColors(file) {
  const stats = await sharp(file, { failOn: "none" }).resize(64, 64, { fit: "inside" }).stats();
  const [r, g, b] = stats.channels;
  const names = [colorName(stats.dominant), colorName({ r: r.mean, g: (g ?? r).mean, b: (b ?? r).mean })];
  return [...new Set(names)];
}
