"use client";

import { formatAge, formatDate, formatStableDate } from "@/lib/client/format";
import { useHydrated } from "@/lib/client/hydrated";
import { useNow } from "@/lib/client/use-now";

/**
 * An instant shown in the viewer's locale and time zone, or as an age ("3 minutes ago") with the
 * exact local time as its tooltip. The server cannot know the viewer's zone, so it renders the
 * instant in UTC, identically on every machine; hydration therefore matches and the browser then
 * renders its own local form (the `<time>` keeps the machine-readable ISO instant throughout).
 */
export function LocalTime({ iso, relative = false, className }: { iso: string | null | undefined; relative?: boolean; className?: string }) {
  const hydrated = useHydrated();
  const now = useNow();
  if (!iso) return <span className={className}>—</span>;
  if (!hydrated || (relative && now === null)) {
    return (
      <time dateTime={iso} className={className}>
        {formatStableDate(iso)}
      </time>
    );
  }
  const local = formatDate(iso);
  return (
    <time dateTime={iso} className={className} title={relative ? local : undefined}>
      {relative && now !== null ? formatAge(iso, now) : local}
    </time>
  );
}
