import Link from "next/link";
import { Badge } from "@/app/_components/ui/badge";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { LocalTime } from "@/app/_components/ui/local-time";
import type { JobRunStatus } from "@/lib/db/schema/jobs";
import { getDeps } from "@/lib/deps";
import { listRuns } from "@/lib/jobs/runs";
import { RefreshWhileVisible } from "../_components/refresh-while-visible";
import { requireOwner } from "../_lib/session";

export const metadata = { title: "Job runs" };
export const dynamic = "force-dynamic";

const TONE = { queued: "neutral", running: "blue", completed: "green", failed: "red" } as const satisfies Record<JobRunStatus, string>;
const JOB_RUN_STATUSES = Object.keys(TONE) as JobRunStatus[];

// Background work of the embedded executor (uploads' thumbnails, encodes, webhooks), newest first.
export default async function JobsPage({ searchParams }: { searchParams: Promise<{ status?: string; cursor?: string }> }) {
  await requireOwner();
  const q = await searchParams;
  const status = (JOB_RUN_STATUSES as readonly string[]).includes(q.status ?? "") ? (q.status as JobRunStatus) : undefined;
  const { runs, next_cursor } = await listRuns((await getDeps()).db, { status, cursor: q.cursor, limit: 50 });
  const filter = (s?: string) => (s ? `/jobs?status=${s}` : "/jobs");
  return (
    <main className="space-y-4">
      <h1 className="text-2xl font-semibold">Job runs</h1>
      <RefreshWhileVisible />
      <nav aria-label="Filter by status" className="flex flex-wrap gap-2 text-sm">
        {[undefined, ...JOB_RUN_STATUSES].map((s) => (
          <Link key={s ?? "all"} href={filter(s)} aria-current={status === s ? "page" : undefined} className={`rounded-md px-3 py-1 ${status === s ? "bg-indigo-50 font-medium text-indigo-800" : "hover:bg-neutral-100"}`}>
            {s ?? "all"}
          </Link>
        ))}
      </nav>
      {runs.length === 0 ? (
        <EmptyState title="No runs">Uploads, encodes and webhook deliveries show up here as they run.</EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="text-neutral-600">
              <tr>
                {["Function", "Event", "Status", "Attempt", "Last error", "Started", "Ended"].map((h) => (
                  <th key={h} scope="col" className="px-3 py-2 font-medium">{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id} className="border-t border-neutral-100 align-top">
                  <td className="px-3 py-2">
                    <Link href={`/jobs/${encodeURIComponent(r.id)}`} className="font-mono text-xs text-indigo-700 hover:underline">{r.function_id}</Link>
                  </td>
                  <td className="px-3 py-2 font-mono text-xs">{r.event_name ?? "—"}</td>
                  <td className="px-3 py-2"><Badge tone={TONE[r.status]}>{r.status}</Badge></td>
                  <td className="px-3 py-2">{r.attempt}</td>
                  <td className="max-w-xs truncate px-3 py-2 text-xs text-red-800" title={r.last_error ?? undefined}>{r.last_error ?? ""}</td>
                  <td className="px-3 py-2 text-xs"><LocalTime iso={r.started_at} /></td>
                  <td className="px-3 py-2 text-xs"><LocalTime iso={r.ended_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next_cursor ? (
        <Link href={`/jobs?${new URLSearchParams({ ...(status ? { status } : {}), cursor: next_cursor })}`} className="inline-block text-sm text-indigo-700 underline">
          Older runs →
        </Link>
      ) : null}
    </main>
  );
}
