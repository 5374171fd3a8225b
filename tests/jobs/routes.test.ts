import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as runRoute from "../../app/api/admin/jobs/runs/[id]/route";
import * as runsRoute from "../../app/api/admin/jobs/runs/route";
import * as serveRoute from "../../app/api/inngest/route";
import { authSecret } from "../../lib/auth/session-principal";
import { createAdminUser } from "../../lib/auth/users";
import type { Db } from "../../lib/db";
import type { Deps } from "../../lib/deps";
import { setDeps } from "../../lib/deps";
import { signedBody, signingKeyFromSecret } from "../../lib/jobs/executor/signing";
import { saveSyncedFunctions } from "../../lib/jobs/executor/store/functions";
import { ingestEvents } from "../../lib/jobs/executor/store/ingest";
import { recordingJobSender } from "../../lib/jobs/send";
import { getSecret } from "../../lib/secrets";
import { jobsDb } from "./helpers";

const URL_ = "http://127.0.0.1:3000/api/inngest";
let db: Db;

beforeAll(async () => {
  ({ db } = await jobsDb());
  // The serve and admin routes only use deps.db on these paths.
  setDeps({ db, clock: () => new Date(), jobs: recordingJobSender() } as unknown as Deps);
});
afterAll(() => setDeps(null));

const call = (method: "GET" | "POST" | "PUT", init: RequestInit & { url?: string } = {}) =>
  serveRoute[method](new Request(init.url ?? URL_, { method, ...init }) as never, undefined);

describe("/api/inngest", () => {
  it("refuses unsigned calls, introspection and sync requests", async () => {
    const body = JSON.stringify({ event: { name: "x", data: {} }, events: [], steps: {}, ctx: { run_id: "r", attempt: 0 } });
    expect((await call("POST", { url: `${URL_}?fnId=easel-jobs-prune-runs&stepId=step`, body })).status).toBe(401);
    expect((await call("PUT", { body: "" })).status).toBe(401);
    expect((await call("GET")).status).toBe(401);
    const forged = signedBody({ url: URL_ }, signingKeyFromSecret("not the instance secret"));
    const res = await call("PUT", { body: forged.body, headers: { "x-inngest-sync-kind": "in_band", "x-inngest-signature": forged.signature } });
    expect(res.status).toBe(401);
  });

  it("answers a sync signed with the instance's key with Easel's functions", async () => {
    const key = signingKeyFromSecret(await getSecret(db, "jobs_signing_key"));
    const { body, signature } = signedBody({ url: URL_ }, key);
    const res = await call("PUT", { body, headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band", "x-inngest-signature": signature } });
    expect(res.status).toBe(200);
    const { functions } = (await res.json()) as { functions: { id: string; triggers: unknown[] }[] };
    expect(functions).toContainEqual(expect.objectContaining({ id: "easel-jobs-prune-runs", triggers: [{ cron: "23 * * * *" }] }));
  });
});

describe("/api/admin/jobs/runs", () => {
  const SESSION_COOKIE = "authjs.session-token";
  const get = (path: string, headers: Record<string, string> = {}) => new Request(`http://localhost/api/admin/jobs/runs${path}`, { headers });
  const noParams = { params: Promise.resolve({}) };
  let runId: string;
  let session: Record<string, string>;

  beforeAll(async () => {
    const now = new Date();
    await saveSyncedFunctions(db, [{ id: "admin-view-fn", name: "admin view", url: `${URL_}?fnId=admin-view-fn&stepId=step`, triggers: [{ event: "test/admin-view" }], concurrency: [], maxAttempts: 4 }], now);
    ({ runs: [runId] } = await ingestEvents(db, [{ name: "test/admin-view", data: { n: 1 } }], now));
    const user = await createAdminUser(db, { email: "jobs-admin@easel.test", password: "correct horse battery", now });
    const cookie = await encode({ token: { sub: String(user.id), email: user.email }, secret: await authSecret(db), salt: SESSION_COOKIE, maxAge: 3600 });
    session = { cookie: `${SESSION_COOKIE}=${cookie}` };
  });

  it("wants a web UI session: no cookie, a forged one, or a bearer token answer 401", async () => {
    const forged = await encode({ token: { sub: "1", email: "x@easel.test" }, secret: "not the instance's secret", salt: SESSION_COOKIE, maxAge: 3600 });
    const refused: Record<string, string>[] = [{}, { cookie: `${SESSION_COOKIE}=${forged}` }, { authorization: "Bearer admin-token-for-tests-0123456789" }];
    for (const headers of refused) {
      const list = await runsRoute.GET(get("", headers), noParams);
      expect(list.status).toBe(401);
      expect(await list.json()).toMatchObject({ errors: [{ extensions: { code: "unauthenticated" } }] });
      expect((await runRoute.GET(get(`/${runId}`, headers), { params: Promise.resolve({ id: runId }) })).status).toBe(401);
    }
  });

  it("lists runs with status and attempts, and shows one run, to a signed-in session", async () => {
    const list = await runsRoute.GET(get("?function_id=admin-view-fn&status=queued", session), noParams);
    expect(list.status).toBe(200);
    expect(list.headers.get("cache-control")).toBe("no-store");
    const { runs } = (await list.json()) as { runs: { id: string; status: string; attempt: number; last_error: string | null; event_name: string }[] };
    expect(runs).toEqual([expect.objectContaining({ id: runId, status: "queued", attempt: 0, last_error: null, event_name: "test/admin-view" })]);
    expect((await runsRoute.GET(get("?status=bogus", session), noParams)).status).toBe(422);

    const one = await runRoute.GET(get(`/${runId}`, session), { params: Promise.resolve({ id: runId }) });
    expect(await one.json()).toMatchObject({ id: runId, event: { name: "test/admin-view", data: { n: 1 } }, pending: [{ kind: "call", step_id: "step" }] });
    expect((await runRoute.GET(get("/nope", session), { params: Promise.resolve({ id: "nope" }) })).status).toBe(404);
  });
});
