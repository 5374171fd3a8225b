/**
 * This process's part in the embedded object store under EASEL_WORKERS: the one worker that owns
 * it ("owner", also a single process) or another worker ("member"). Kept by worker.mjs on a global
 * and looked up per call: a member that takes over from a dead owner serves the next call itself.
 */
export type ClusterState = { role: "owner" | "member"; executorWanted: boolean };
const STATE = Symbol.for("easel.cluster");

/** The worker's state under EASEL_WORKERS (kept by worker.mjs), or undefined in a single process. */
export const clusterState = (): ClusterState | undefined => (globalThis as { [STATE]?: ClusterState })[STATE];

export const storeRole = (): "owner" | "member" => clusterState()?.role ?? "owner";

/** The owner's private socket (set by the primary for its workers), or undefined in a single process. */
export const ownerSocketPath = (): string | undefined => process.env.EASEL_CLUSTER_SOCKET || undefined;
