import type { Db } from "../../../db";
import { runStatement, Statement } from "./statement";

export type CheckpointedStep = { id: string; name: string | null; data: unknown };

/** Checkpoints of more steps than this are rare (the SDK posts one step at a time): not prepared. */
const PREPARED_UP_TO = 4;

/**
 * Memoizes the steps a call checkpointed, in one statement, while the call's lease is held and
 * its run has not ended (the queue row locked as it is checked, as a settle does). False, having
 * written nothing, when the lease is gone: the SDK then stops the call. First result wins, as on
 * every memo.
 */
export async function storeCheckpoint(
  db: Db,
  input: { runId: string; itemId: number; leaseToken: string; steps: CheckpointedStep[]; now: Date },
): Promise<boolean> {
  const s = new Statement();
  const runId = s.p(input.runId, "text");
  const values = input.steps.map((step, i) => `(${s.p(step.id, "text")}, ${i + 1}, ${s.p(step.name, "text")}, ${s.json({ data: step.data ?? null })})`).join(", ");
  const text = `with guard as (select q.id from job_queue q join job_runs r on r.id = q.run_id
      where q.id = ${s.p(input.itemId, "bigint")} and q.lease_token = ${s.p(input.leaseToken, "text")} and q.run_id = ${runId}
        and r.status not in ('completed', 'failed')
      for update of q),
    memo as (insert into job_steps (run_id, step_id, seq, name, result, created_at)
      select ${runId}, v.step_id, (select coalesce(max(seq), -1) from job_steps where run_id = ${runId}) + v.ord, v.name, v.result, ${s.at(input.now)}
      from (values ${values}) as v(step_id, ord, name, result) where exists (select 1 from guard)
      on conflict do nothing)
    select exists (select 1 from guard) as held`;
  const [row] = await runStatement<{ held: boolean }>(db, text, s.params, input.steps.length <= PREPARED_UP_TO);
  return Boolean(row?.held);
}
