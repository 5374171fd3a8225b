import type { ReactNode } from "react";

type Tone = "neutral" | "green" | "amber" | "red" | "blue" | "violet";

const TONES: Record<Tone, string> = {
  neutral: "bg-neutral-100 text-neutral-700 ring-neutral-300",
  green: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  amber: "bg-amber-50 text-amber-800 ring-amber-300",
  red: "bg-red-50 text-red-800 ring-red-300",
  blue: "bg-sky-50 text-sky-800 ring-sky-300",
  violet: "bg-violet-50 text-violet-800 ring-violet-300",
};

export function Badge({ tone = "neutral", children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span title={title} className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[tone]}`}>
      {children}
    </span>
  );
}

const STATE_TONE: Record<string, Tone> = { active: "green", archived: "amber", read_only: "blue", trashed: "red" };
const STATE_LABEL: Record<string, string> = { active: "active", archived: "archived", read_only: "read-only", trashed: "trashed" };

/** How a board's state reads, on its badge and in names that include it. */
export const boardStateLabel = (state: string) => STATE_LABEL[state] ?? state;

export function BoardStateBadge({ state }: { state: string }) {
  return <Badge tone={STATE_TONE[state] ?? "neutral"}>{boardStateLabel(state)}</Badge>;
}
