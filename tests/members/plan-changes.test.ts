import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as workspaceRoute from "../../app/api/admin/workspaces/[slug]/route";
import { workspaces, type User, type Workspace } from "../../lib/db/schema";
import { addMembership } from "../../lib/members/add-member";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { newWorkspace } from "../helpers/factories";
import { newUser, sessionHeaders } from "../helpers/sessions";

/** A workspace's plan and trial are the owners' to set; its admins may still switch streaming. */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let admin: User;
let owner: User;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "free" });
  admin = await newUser(deps.db);
  await addMembership(deps.db, { workspace: ws, userId: admin.id, role: "admin", now: deps.clock() });
  owner = await newUser(deps.db, { owner: true });
});

const patch = async (by: User, workspace: Record<string, unknown>) =>
  call(workspaceRoute.PATCH, { method: "PATCH", path: `/api/admin/workspaces/${ws.slug}`, headers: await sessionHeaders(deps.db, by), params: { slug: ws.slug }, json: { workspace } });
const stored = async () => (await deps.db.select().from(workspaces).where(eq(workspaces.id, ws.id)))[0];

describe("plan changes", () => {
  it("refuse a workspace admin raising the plan or starting a trial (403 insufficient_scope), changing nothing", async () => {
    for (const body of [{ plan: "enterprise" }, { trial_of: "enterprise" }, { plan: "enterprise", streaming_enabled: false }]) {
      const res = await patch(admin, body);
      expectError(res, 403, "insufficient_scope");
      expect(res.body.errors[0].extensions.required_scope).toBe("owner");
    }
    expect(await stored()).toMatchObject({ plan: "free", trialOf: null, streamingEnabled: true });
  });

  it("let the admin resend the current plan and switch streaming, as the settings form does", async () => {
    const res = await patch(admin, { plan: "free", trial_of: null, streaming_enabled: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ plan: "free", trial_of: null, streaming_enabled: false });
  });

  it("are an owner's to make", async () => {
    const res = await patch(owner, { plan: "enterprise", trial_of: null });
    expect(res.status).toBe(200);
    expect(await stored()).toMatchObject({ plan: "enterprise", trialOf: null });
  });
});
