/** What one person made in a workspace that ends with their admin role (access-made-by.ts). */
export type MadeCounts = { api_tokens: number; invitations: number; webhook_triggers: number };

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * "2 API tokens and 1 pending invitation", with ", … and 1 webhook trigger" when they made any:
 * the words the members page and the CLI both use. No imports, so browser code may use it.
 */
export function describeMade(made: MadeCounts): string {
  const parts = [plural(made.api_tokens, "API token"), plural(made.invitations, "pending invitation")];
  if (made.webhook_triggers > 0) parts.push(plural(made.webhook_triggers, "webhook trigger"));
  return `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

export const madeAnything = (made: MadeCounts) => made.api_tokens + made.invitations + made.webhook_triggers > 0;
