/**
 * Who made a version, from its `created_by_token` (lib/auth/principal.ts creatorLabel): a person
 * signed in to the web UI (`user:<email>`), a board access link (`board:<id>`), or an API token
 * (its prefix), named when the page knows the token's name.
 */
export function describeCreator(label: string | null | undefined, tokenNames: Record<string, string> = {}): string | null {
  if (!label) return null;
  if (label.startsWith("user:")) return label.slice("user:".length);
  if (label.startsWith("board:")) return "a board access link";
  const name = Object.hasOwn(tokenNames, label) ? tokenNames[label] : undefined;
  return name ? `API token “${name}”` : `API token ${label}…`;
}
