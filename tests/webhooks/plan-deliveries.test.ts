import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../lib/auth/principal";
import { triggers, type Board, type Workspace } from "../../lib/db/schema";
import { createTrigger } from "../../lib/webhooks";
import { planDeliveries, type AssetChange } from "../../lib/webhooks/plan-deliveries";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newBoard, newWorkspace } from "../helpers/factories";

/** The fan-out's choice of triggers, without the executor. */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let root: Board;
let child: Board;
const admin: Principal = { kind: "session", userId: 1, email: "admin@example.com", owner: true, roles: new Map() };

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  root = await newBoard(deps.db, ws, { title: "Root" });
  child = await newBoard(deps.db, ws, { title: "Child", parentId: root.id });
});

const hook = (board: Board, kind: AssetChange["kind"] = "asset_added") =>
  createTrigger(deps, admin, { hook: kind, hookUrl: "https://93.184.215.14/h", organizationSlug: ws.slug, collectionToken: board.token });
const change = (assetId: number, over: Partial<AssetChange> = {}): AssetChange => ({ assetId, workspaceId: ws.id, kind: "asset_added", occurredAt: new Date().toISOString(), ...over });

describe("planDeliveries", () => {
  it("one target per live trigger of the kind on the asset's boards and their ancestors; ids stable per event", async () => {
    const onRoot = await hook(root);
    const onChild = await hook(child);
    await hook(child, "asset_deleted");
    const deleted = await hook(root);
    await deps.db.update(triggers).set({ deletedAt: new Date() }).where(eq(triggers.id, deleted.id));
    const disabled = await hook(root);
    await deps.db.update(triggers).set({ disabledAt: new Date() }).where(eq(triggers.id, disabled.id));
    const expired = await hook(root);
    await deps.db.update(triggers).set({ expirationDate: new Date(Date.now() - 1000) }).where(eq(triggers.id, expired.id));

    const asset = await insertAsset(deps.db, ws, { boardIds: [child.id, root.id] });
    const plan = await planDeliveries(deps, "evt-1", change(asset.id));
    expect(plan?.targets.map((t) => t.triggerId).sort()).toEqual([onRoot.id, onChild.id].sort());
    expect(plan?.targets.find((t) => t.triggerId === onChild.id)?.collection).toEqual({ token: child.token, title: "Child" });

    const again = await planDeliveries(deps, "evt-1", change(asset.id));
    expect(again?.targets.map((t) => t.messageId)).toEqual(plan?.targets.map((t) => t.messageId));
    const other = await planDeliveries(deps, "evt-2", change(asset.id));
    expect(other?.targets[0].messageId).not.toBe(plan?.targets[0].messageId);
  });

  it("nothing for an asset deleted before the fan-out ran, on no board, or of another workspace", async () => {
    expect(await planDeliveries(deps, "evt-3", change(987_654))).toBeNull();
    const loose = await insertAsset(deps.db, ws, {});
    expect(await planDeliveries(deps, "evt-4", change(loose.id))).toBeNull();
    const otherWs = await newWorkspace(deps.db);
    const foreign = await insertAsset(deps.db, otherWs, { boardIds: [(await newBoard(deps.db, otherWs)).id] });
    expect(await planDeliveries(deps, "evt-5", change(foreign.id))).toBeNull();
  });

  it("asset_deleted reads the boards from the event's snapshot", async () => {
    const onRoot = await hook(root, "asset_deleted");
    const plan = await planDeliveries(deps, "evt-6", change(424_242, { kind: "asset_deleted", snapshot: { id: 424_242, token: "gone", title: "Gone", boardIds: [child.id] } }));
    expect(plan?.targets.map((t) => t.triggerId)).toContain(onRoot.id);
    expect(plan?.base.asset).toEqual({ id: 424_242, token: "gone", title: "Gone" });
  });
});
