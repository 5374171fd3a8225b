import sharp from "sharp";

/**
 * A preview of a thumbnail for versions past the revert window on a gated plan: at most 320 px
 * wide, with a diagonal "PREVIEW" mark across it. Rendered in the server: its input is a JPEG
 * thumbnail Easel rendered itself (at most 1280 px), never an uploaded file.
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
