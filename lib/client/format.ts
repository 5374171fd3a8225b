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

const dateTime = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** "3 days ago" style age, for scanning a list; the exact time goes in a title/tooltip. */
export function formatAge(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
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
  return formatDate(iso);
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
