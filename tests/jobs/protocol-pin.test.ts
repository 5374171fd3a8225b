import { Inngest } from "inngest";
import { serve } from "inngest/next";
import { describe, expect, it } from "vitest";
import { EMBEDDED_BASE_URL } from "../../lib/jobs/executor";
import { callBody, interpretAnswer } from "../../lib/jobs/executor/protocol";
import { signedBody, signingKeyFromSecret } from "../../lib/jobs/executor/signing";
import { inProcessTransport } from "../../lib/jobs/executor/transport";

/**
 * What the executor relies on in the Inngest SDK (4.24), pinned: a change in the SDK fails here
 * first, not as runs that quietly cost twice as much or stall.
 * - With `ctx.fn_id` and `ctx.qi_id`, a discovery call runs the function's steps one after the
 *   other, posts each result to `POST <base>/v1/checkpoint/:runId/async` (one `StepRun` op, the
 *   `qi_id` sent back) before the next step starts, and answers the end as `RunComplete`.
 * - A checkpoint answered 409 stops the call: a non-retriable error answer.
 * - Without `fn_id` the SDK answers one step per call (the protocol without checkpoints).
 * - The Next.js adapter answers a request of the API-route convention through `res`.
 */

const signingKey = signingKeyFromSecret("protocol-pin");
type Posted = { url: string; body: { run_id: string; fn_id: string; qi_id: string; steps: { op: string; id: string; name: string; data: unknown }[] } };

function sdkWith(checkpointStatus: number) {
  const posted: Posted[] = [];
  const ran: string[] = [];
  const client = new Inngest({
    id: "pin",
    isDev: false,
    baseUrl: EMBEDDED_BASE_URL,
    eventKey: "pin",
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      posted.push({ url: request.url, body: await request.json() });
      return Response.json({}, { status: checkpointStatus });
    }) as typeof fetch,
  });
  client.setEnvVars({ INNGEST_SIGNING_KEY: signingKey });
  const fn = client.createFunction({ id: "two-steps", retries: 2, triggers: [{ event: "pin/go" }] }, async ({ step }) => {
    const a = await step.run("first", () => (ran.push("first"), { n: 1 }));
    const b = await step.run("second", () => (ran.push(`second after ${posted.length} checkpoint(s)`), "two"));
    return { a, b };
  });
  const transport = inProcessTransport(serve({ client, functions: [fn], enableUnauthedSync: false }));
  const call = (checkpoint: boolean) => {
    const payload = callBody({
      runId: "RUN1",
      event: { name: "pin/go", data: {} },
      steps: [],
      attempt: 0,
      maxAttempts: 3,
      disableImmediateExecution: false,
      requestVersion: null,
      ...(checkpoint ? { checkpoint: { fnId: "pin-two-steps", queueItemId: "7:lease" } } : {}),
    });
    const { body, signature } = signedBody(payload, signingKey);
    return transport({
      method: "POST",
      url: "http://easel-jobs.internal/api/inngest?fnId=pin-two-steps&stepId=step",
      headers: { "content-type": "application/json", "x-inngest-signature": signature },
      body,
    });
  };
  return { call, posted, ran };
}

describe("Inngest SDK protocol as the executor uses it", () => {
  it("runs every step of a discovery call, checkpointing each before the next, and answers RunComplete", async () => {
    const sdk = sdkWith(200);
    const answer = await sdk.call(true);
    expect(answer.status).toBe(206);
    expect(JSON.parse(answer.body)).toEqual([{ op: "RunComplete", id: expect.any(String), data: { a: { n: 1 }, b: "two" } }]);
    expect(interpretAnswer(answer, Date.now())).toEqual({ kind: "completed", output: { a: { n: 1 }, b: "two" } });
    expect(sdk.ran).toEqual(["first", "second after 1 checkpoint(s)"]);
    expect(sdk.posted.map((p) => p.url)).toEqual([`${EMBEDDED_BASE_URL}v1/checkpoint/RUN1/async`, `${EMBEDDED_BASE_URL}v1/checkpoint/RUN1/async`]);
    expect(sdk.posted.map((p) => ({ run_id: p.body.run_id, fn_id: p.body.fn_id, qi_id: p.body.qi_id }))).toEqual([
      { run_id: "RUN1", fn_id: "pin-two-steps", qi_id: "7:lease" },
      { run_id: "RUN1", fn_id: "pin-two-steps", qi_id: "7:lease" },
    ]);
    expect(sdk.posted.map((p) => p.body.steps.map((s) => ({ op: s.op, name: s.name, data: s.data, hashed: /^[0-9a-f]{40}$/.test(s.id) })))).toEqual([
      [{ op: "StepRun", name: "first", data: { n: 1 }, hashed: true }],
      [{ op: "StepRun", name: "second", data: "two", hashed: true }],
    ]);
    expect(answer.headers["x-inngest-req-version"]).toBe("2");
  });

  it("stops a call whose checkpoint is refused with 409, with an error it must not retry", async () => {
    const sdk = sdkWith(409);
    const answer = await sdk.call(true);
    expect(answer.status).toBe(400);
    expect(answer.headers["x-inngest-no-retry"]).toBe("true");
    expect(sdk.ran).toEqual(["first"]);
    expect(interpretAnswer(answer, Date.now())).toMatchObject({ kind: "error", retriable: false, error: { name: "StaleDispatchError" } });
  });

  it("answers one step per call without fn_id", async () => {
    const sdk = sdkWith(200);
    const answer = await sdk.call(false);
    expect(answer.status).toBe(206);
    expect(JSON.parse(answer.body)).toMatchObject([{ op: "StepRun", name: "first", data: { n: 1 } }]);
    expect(sdk.posted).toEqual([]);
  });

  it("answers an API-route request through res, without a Response", async () => {
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
    const client = new Inngest({ id: "pin-res", isDev: false, baseUrl: EMBEDDED_BASE_URL, logger: quiet });
    client.setEnvVars({ INNGEST_SIGNING_KEY: signingKey });
    const handlers = serve({ client, functions: [] });
    const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
    const res = {
      status: (code: number) => void (sent.status = code),
      setHeader: (name: string, value: string) => void (sent.headers[name.toLowerCase()] = value),
      send: (body: string) => void (sent.body = body),
    };
    // Unsigned: refused, and the refusal goes through `res` too.
    const req = { method: "POST", url: "http://easel-jobs.internal/api/inngest?fnId=x&stepId=step", headers: { get: () => null }, text: async () => "{}" };
    const returned = await handlers.POST(req as never, res as never);
    expect(returned).toBeUndefined();
    expect(sent.status).toBe(401);
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(typeof sent.body).toBe("string");
  });
});
