import type { Db } from "../../db";
import type { JobConcurrency, JobTrigger } from "../../db/schema/jobs";
import { parseCron } from "./cron";
import { compileExpression } from "./expression";
import { signedBody } from "./signing";
import { saveSyncedFunctions, type SyncedFunction } from "./store/functions";
import type { Transport } from "./transport";

/** Function options a real Inngest server honours that this executor does not; synced functions using them get a warning. */
const IGNORED = ["batchEvents", "debounce", "rateLimit", "throttle", "idempotency", "cancel", "priority", "singleton", "timeouts"];

type RawFunction = {
  id: string;
  name?: string;
  triggers?: JobTrigger[];
  steps?: { step?: { runtime?: { url?: string }; retries?: { attempts?: number } } };
  concurrency?: number | JobConcurrency | JobConcurrency[];
  [k: string]: unknown;
};

export type SyncLog = { warn: (msg: string) => void; error: (msg: string) => void };

/** The SDK passes `concurrency` through as written: a number, one rule, or a list of rules. */
export function normalizeConcurrency(value: RawFunction["concurrency"]): JobConcurrency[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "number") return [{ limit: value }];
  return Array.isArray(value) ? value : [value];
}

/** Checks what the executor must evaluate; a function it cannot run precisely is left out, loudly. */
function toSynced(raw: RawFunction, log: SyncLog): SyncedFunction | null {
  const url = raw.steps?.step?.runtime?.url;
  if (!url) return log.error(`[jobs] function ${raw.id} has no call URL; skipped`), null;
  const concurrency = normalizeConcurrency(raw.concurrency);
  const triggers = raw.triggers ?? [];
  try {
    for (const t of triggers) {
      if ("cron" in t) parseCron(t.cron);
      else if (t.expression) compileExpression(t.expression);
    }
    for (const c of concurrency) if (c.key) compileExpression(c.key);
  } catch (err) {
    log.error(`[jobs] function ${raw.id} cannot run on the embedded executor: ${(err as Error).message}; skipped`);
    return null;
  }
  const ignored = IGNORED.filter((k) => raw[k] !== undefined && raw[k] !== null);
  if (ignored.length) log.warn(`[jobs] function ${raw.id}: ${ignored.join(", ")} ignored by the embedded executor`);
  const retries = raw.steps?.step?.retries?.attempts;
  return {
    id: raw.id,
    name: raw.name ?? raw.id,
    url,
    triggers,
    concurrency: concurrency.filter((c) => c.limit > 0),
    maxAttempts: (typeof retries === "number" ? retries : 3) + 1,
  };
}

/**
 * In-band sync (the SDK's `x-inngest-sync-kind: in_band`): a signed PUT to the serve route, whose
 * answer lists the functions, their triggers, retries and concurrency. They replace the stored set.
 */
export async function syncFunctions(opts: { db: Db; now: Date; signingKey: string; serveUrl: string; transport: Transport; log: SyncLog }) {
  const { body, signature } = signedBody({ url: opts.serveUrl }, opts.signingKey);
  const answer = await opts.transport({
    method: "PUT",
    url: opts.serveUrl,
    headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band", "x-inngest-signature": signature },
    body,
  });
  if (answer.status !== 200 || answer.headers["x-inngest-sync-kind"] !== "in_band") {
    throw new Error(`sync with ${opts.serveUrl} failed: ${answer.status} ${answer.body.slice(0, 300)}`);
  }
  const parsed = JSON.parse(answer.body) as { functions?: RawFunction[] };
  const fns: SyncedFunction[] = [];
  for (const raw of parsed.functions ?? []) {
    try {
      const fn = toSynced(raw, opts.log);
      if (fn) fns.push(fn);
    } catch (err) {
      // One function the executor cannot read must not stop the others from running.
      opts.log.error(`[jobs] function ${raw.id} could not be read: ${(err as Error).message}; skipped`);
    }
  }
  await saveSyncedFunctions(opts.db, fns, opts.now);
  return fns;
}
