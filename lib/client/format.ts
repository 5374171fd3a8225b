/** Display helpers shared by the UI (no server code). */

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return "—";
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/**
 * A date and time in the viewer's own locale and time zone (the browser's defaults). Differs
 * between the server and each browser, so it is only ever rendered after hydration (LocalTime).
 */
export function formatDate(iso: string | null | undefined, options: { locale?: string; timeZone?: string } = {}): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(options.locale, { dateStyle: "medium", timeStyle: "short", timeZone: options.timeZone }).format(d);
}

/**
 * The same instant in a form that is identical on every machine whatever its locale and time
 * zone ("2026-11-28 19:20 UTC"): what the server renders and hydration expects, before the
 * browser replaces it with the viewer's local form.
 */
export function formatStableDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "3 days ago" style age in the viewer's locale, for scanning a list; the exact time goes in a title/tooltip. */
export function formatAge(iso: string, now: number, locale?: string): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  const steps: [number, Intl.RelativeTimeFormatUnit][] = [
    [60, "second"],
    [3600, "minute"],
    [86400, "hour"],
    [86400 * 30, "day"],
    [86400 * 365, "month"],
    [Infinity, "year"],
  ];
  let unitSeconds = 1;
  for (const [limit, unit] of steps) {
    if (Math.abs(seconds) < limit) return rtf.format(-Math.round(seconds / unitSeconds), unit);
    unitSeconds = limit;
  }
  return formatDate(iso, { locale });
}

export const mediaFamily = (mediaType: string): "image" | "video" | "audio" | "other" => {
  const family = mediaType.split("/")[0];
  return family === "image" || family === "video" || family === "audio" ? family : "other";
};

export const PLAN_LABEL: Record<string, string> = { free: "Free", pro: "Pro", creative: "Creative", team: "Team", business: "Business", enterprise: "Enterprise" };

export function revertWindowLabel(days: number | null): string {
  return days === null ? "unlimited" : `${days} days`;
}

/**
 * A head media link that changes when the content does. The server keeps an asset's links stable
 * across version writes (links handed out serve the new content), so the browser's cached copy of
 * the same URL would show the old picture after a revert; a content key in the query makes the
 * URL new. The signature covers the path and expiry only, so the link stays valid.
 */
export function headMedia(url: string, md5: string): string {
  try {
    const u = new URL(url);
    u.searchParams.set("v", md5.slice(0, 12));
    return u.toString();
  } catch {
    return url;
  }
}
