import fs from "node:fs";
import sharp from "sharp";
import type { Thumbnail } from "../db/schema";

/** What sharp reads an image from: the file's path, or (vector images) its bytes in memory. */
export type ImageSource = string | Buffer;

/** Largest vector image (SVG, SVGZ) rendered to thumbnails; above it, none are made. */
export const MAX_VECTOR_BYTES = 16 * 1024 * 1024;

/**
 * Where sharp should read an uploaded image from. Raster files are read from their path. A text
 * document (SVG or any XML: its first character, after a byte-order mark and white space, is
 * `<`) or gzip data (SVGZ) is read into memory first: rendered from a buffer, librsvg has no base
 * location, so it loads nothing beyond the document itself (no file beside it, never the
 * network, no external entity) and scripts in it never run. null: too large to render.
 */
export async function imageSource(file: string): Promise<ImageSource | null> {
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

function isVectorCandidate(head: Buffer): boolean {
  if (head[0] === 0x1f && head[1] === 0x8b) return true; // gzip: SVGZ
  let text = head;
  if (text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf) text = text.subarray(3);
  // UTF-16 text (with a byte-order mark) is text too: librsvg would parse it as XML.
  if ((text[0] === 0xff && text[1] === 0xfe) || (text[0] === 0xfe && text[1] === 0xff)) return true;
  const first = text.findIndex((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
  return first >= 0 && text[first] === 0x3c; // "<"
}

/** Longest edge of each thumbnail size; images are never enlarged. */
export const THUMBNAIL_SIZES = { small: 160, medium: 480, large: 1280 } as const;

export type RenderedThumbnail = { size: Thumbnail["size"]; body: Buffer; width: number; height: number };

/** JPEG thumbnails of an image (EXIF orientation applied, transparency flattened on white); an SVG comes out as a raster JPEG like any other. */
export async function renderThumbnails(file: ImageSource): Promise<RenderedThumbnail[]> {
  const out: RenderedThumbnail[] = [];
  for (const [size, edge] of Object.entries(THUMBNAIL_SIZES) as [Thumbnail["size"], number][]) {
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

/** Width and height as displayed (EXIF orientation applied). */
export async function imageSize(file: ImageSource): Promise<{ width?: number; height?: number }> {
  const meta = await sharp(file, { failOn: "none" }).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  return swap ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
}

/**
 * A preview of a thumbnail for versions past the revert window on a gated plan: at most 320 px
 * wide, with a diagonal "PREVIEW" mark across it.
 */
export async function renderPreview(source: Buffer, maxWidth = 320): Promise<Buffer> {
  const base = sharp(source).resize({ width: maxWidth, withoutEnlargement: true });
  const { width = maxWidth, height = maxWidth } = await base.clone().toBuffer({ resolveWithObject: true }).then((r) => r.info);
  const font = Math.max(12, Math.round(width / 7));
  const mark = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <text x="50%" y="50%" text-anchor="middle" dominant-baseline="middle" font-family="sans-serif" font-weight="700"
        font-size="${font}" fill="rgba(255,255,255,0.55)" stroke="rgba(0,0,0,0.35)" stroke-width="1"
        transform="rotate(-30 ${width / 2} ${height / 2})">PREVIEW</text></svg>`,
  );
  return base.composite([{ input: mark, top: 0, left: 0 }]).jpeg({ quality: 70 }).toBuffer();
}
