import sharp from "sharp";

type Rgb = { r: number; g: number; b: number };

/** The plain colour word a person would use for an RGB colour (ai_search matches these). */
export function colorName({ r, g, b }: Rgb): string {
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

/** Up to two colour words for an image: its dominant colour and its average colour. */
export async function dominantColors(file: string | Buffer): Promise<string[]> {
  const stats = await sharp(file, { failOn: "none" }).resize(64, 64, { fit: "inside" }).stats();
  const [r, g, b] = stats.channels;
  const names = [colorName(stats.dominant), colorName({ r: r.mean, g: (g ?? r).mean, b: (b ?? r).mean })];
  return [...new Set(names)];
}
