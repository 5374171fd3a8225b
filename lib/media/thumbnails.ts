import sharp from "sharp";
import type { Thumbnail } from "../db/schema";

/** Longest edge of each thumbnail size; images are never enlarged. */
export const THUMBNAIL_SIZES = { small: 160, medium: 480, large: 1280 } as const;

export type RenderedThumbnail = { size: Thumbnail["size"]; body: Buffer; width: number; height: number };

/** JPEG thumbnails of an image file (EXIF orientation applied, transparency flattened on white). */
export async function renderThumbnails(file: string): Promise<RenderedThumbnail[]> {
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
export async function imageSize(file: string): Promise<{ width?: number; height?: number }> {
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
