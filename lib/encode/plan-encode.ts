import type { Deps } from "../deps";
import { workspaceStorage } from "../storage/workspace-storage";
import type { EncodeOwner } from "./claim";
import { planLadder, type Rung } from "./ladder";
import { whileLeased } from "./lease";
import { probeSource, type SourceInfo } from "./probe-source";
import { sourceFile } from "./source-file";

export type EncodePlan = { source: SourceInfo; rungs: Rung[] };

/** The probe step: the source's streams and size, and the ladder they call for. */
export async function planEncode(deps: Deps, owner: EncodeOwner, runId: string): Promise<EncodePlan> {
  const storage = workspaceStorage(deps, owner);
  return whileLeased(storage, owner.storageKey, runId, deps.clock, async () => {
    const source = await probeSource(await sourceFile(storage, owner.storageKey, runId));
    return { source, rungs: planLadder(source) };
  });
}
