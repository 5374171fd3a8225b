export { listRuns, type RunFilter } from "./list-runs";
export { getRun } from "./get-run";
export { pruneRuns } from "./prune-runs";
