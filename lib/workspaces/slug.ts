/** Slugs that static route segments would shadow (`/v1/trigger`, `/mcp`, `/api`, `/api/test`). */
export const RESERVED_SLUGS = ["trigger", "mcp", "api", "test"] as const;

/** null when valid, else why not. */
export function slugProblem(slug: string): string | null {
  if (!/^[a-z0-9-]{2,64}$/.test(slug)) return `"${slug}" is not a valid slug: use 2 to 64 lowercase letters, digits and "-"`;
  if ((RESERVED_SLUGS as readonly string[]).includes(slug)) return `"${slug}" is reserved`;
  return null;
}
