import Link from "next/link";
import { notFound } from "next/navigation";
import { Badge } from "@/app/_components/ui/badge";
import { LocalTime } from "@/app/_components/ui/local-time";
import { getDeps } from "@/lib/deps";
import { getRun } from "@/lib/jobs/runs";
import { RefreshWhileVisible } from "../../_components/refresh-while-visible";
import { requireOwner } from "../../_lib/session";

export const metadata = { title: "Job run" };
export const dynamic = "force-dynamic";

// One run: its steps, pending work and the latest calls of the serve route, for diagnosing failures.
export default async function JobRunPage({ params }: { params: Promise<{ id: string }> }) {
  await requireOwner();
  const run = await getRun((await getDeps()).db, decodeURIComponent((await params).id));
  if (!run) notFound();
  return (
    <main className="space-y-5">
      <Link href="/jobs" className="text-sm text-indigo-700 hover:underline">← Job runs</Link>
      <RefreshWhileVisible />
      <h1 className="flex flex-wrap items-center gap-2 text-2xl font-semibold">
        <span className="font-mono text-lg">{run.function_id}</span> <Badge>{run.status}</Badge>
      </h1>
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
        <dt className="text-neutral-500">Run</dt><dd className="font-mono text-xs">{run.id}</dd>
        <dt className="text-neutral-500">Event</dt><dd className="font-mono text-xs">{run.event_name ?? "—"}</dd>
        <dt className="text-neutral-500">Created</dt><dd><LocalTime iso={run.created_at} /></dd>
        <dt className="text-neutral-500">Ended</dt><dd><LocalTime iso={run.ended_at} /></dd>
        <dt className="text-neutral-500">Last error</dt><dd className="text-red-800">{run.last_error ?? "—"}</dd>
      </dl>
      <section className="space-y-2">
        <h2 className="font-semibold">Steps</h2>
        <ol className="list-decimal space-y-1 pl-6 text-sm">
          {run.steps.map((s) => (
            <li key={s.seq}>
              <span className="font-mono">{s.name}</span> {s.ok ? <Badge tone="green">ok</Badge> : <Badge tone="red">error</Badge>} <span className="text-xs text-neutral-500"><LocalTime iso={s.at} /></span>
            </li>
          ))}
          {run.steps.length === 0 ? <li className="list-none text-neutral-500">No steps recorded.</li> : null}
        </ol>
      </section>
      <section className="space-y-2">
        <h2 className="font-semibold">Latest calls</h2>
        <ul className="space-y-1 text-sm">
          {run.calls.map((c, i) => (
            <li key={i} className="font-mono text-xs">
              <LocalTime iso={c.started_at} /> · HTTP {c.status} · {c.outcome} · {c.duration_ms} ms{c.error ? ` · ${c.error}` : ""}
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
