export type Outcome = { path: string; status: "uploaded" | "skipped" | "failed"; asset_token: string | null; code: string | null; message: string | null };

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** One stdout line per file (contract §15): plain words, or with --json one JSON object. */
export function formatOutcome(outcome: Outcome, json: boolean): string {
  if (json) return JSON.stringify(outcome);
  if (outcome.status === "failed") return `failed ${outcome.path} ${outcome.code ?? "error"} ${oneLine(outcome.message ?? "")}`;
  return `${outcome.status} ${outcome.path} ${outcome.asset_token}`;
}
