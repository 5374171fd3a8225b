/** How an encode's progress reads on the asset page and the board card (no server code). */
export type EncodeProgressValue = { fraction: number; rung: string; eta_seconds: number | null };

/** The estimate as a person reads it: "less than a minute left", "about 4 min left", "about 1 h 20 min left". */
export function formatEta(seconds: number | null): string | null {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return null;
  if (seconds < 60) return "less than a minute left";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min left`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `about ${h} h${m ? ` ${m} min` : ""} left`;
}

/** Whole percent, clamped to 0–100 (a fraction from the server is already in 0–1). */
export const percentOf = (fraction: number) => Math.max(0, Math.min(100, Math.floor((Number.isFinite(fraction) ? fraction : 0) * 100)));

/** The rung or stage in words: a rendition name ("720p") as it is, "probe" and "storyboard" said out. */
export function stageOf(rung: string): string {
  if (rung === "probe") return "Reading the video";
  if (rung === "storyboard") return "Making previews";
  return `Encoding ${rung}`;
}

/** One line: "Encoding 720p · 42 % · about 4 min left". */
export function describeProgress(p: EncodeProgressValue): string {
  return [stageOf(p.rung), `${percentOf(p.fraction)} %`, formatEta(p.eta_seconds)].filter(Boolean).join(" · ");
}
