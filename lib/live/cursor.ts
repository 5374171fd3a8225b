import { z } from "zod";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A message id: a ULID (lib/jobs/executor/ids.ts). */
export const Cursor = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/);

/** The milliseconds a ULID was made at (its first ten characters). */
export function cursorTime(id: string): number {
  let ms = 0;
  for (const c of id.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(c);
  return ms;
}

/**
 * `?since=` of a stream's first request: milliseconds since the epoch on the page's clock, at most
 * a day away from now (anything else is ignored rather than refused: the page still gets a stream).
 */
export function parseSince(value: string | null, now = Date.now()): number | undefined {
  const n = z.coerce.number().int().safeParse(value ?? undefined);
  if (!n.success || Math.abs(n.data - now) > 86_400_000) return undefined;
  return n.data;
}
