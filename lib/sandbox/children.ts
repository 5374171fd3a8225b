import type { ChildProcess } from "node:child_process";
import { log } from "../log/logger.mjs";
import { onStopSignal } from "../server/shutdown";

/**
 * Every live media child of this process, so that a stop ends them at once: a render or an
 * encode holds its job step's request open, and the server would otherwise wait the whole grace
 * period for it. (A server killed outright takes them with it: they run with a parent-death
 * signal, lib/sandbox/run-limited.ts.)
 */
type State = { live: Set<ChildProcess>; stopping: boolean; hooked: boolean };
const state: State = ((globalThis as { __easelMediaChildren?: State }).__easelMediaChildren ??= { live: new Set(), stopping: false, hooked: false });

/** Set by Easel's own server (lib/server/start.mjs), which handles stop signals for the whole process. */
const SERVER_MARKER = Symbol.for("easel.clientAddressHeader");

export function trackChild(child: ChildProcess): void {
  state.live.add(child);
  child.once("exit", () => state.live.delete(child));
  // Only under Easel's server: elsewhere (tests, tools) a listener would stop the signal ending the process.
  if (!state.hooked && (globalThis as { [SERVER_MARKER]?: unknown })[SERVER_MARKER]) {
    state.hooked = true;
    onStopSignal("media children", stopMediaChildren);
  }
}

/** True once a stop began: a child that dies now was ended by it, not by its file. */
export const isStopping = () => state.stopping;

/** Kills every live media child (SIGKILL: a render stuck in native code ignores anything gentler). */
export function stopMediaChildren(): number {
  state.stopping = true;
  const count = state.live.size;
  for (const child of state.live) child.kill("SIGKILL");
  if (count) log().info({ component: "media", children: count }, "stopping: ended the media children still running");
  return count;
}

/** How many media children are running now. */
export const liveChildren = () => state.live.size;

/** The pids of the media children running now. */
export const livePids = () => [...state.live].map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
