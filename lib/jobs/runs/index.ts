export { listRuns, type RunFilter } from "./list-runs";
export { getRun } from "./get-run";
export { pruneRuns } from "./prune-runs";
export type { RunJson } from "./present";
