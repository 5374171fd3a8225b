/**
 * The Inngest SDK looks up its own variables (about forty names) several times per call to the
 * serve route, each read a call into Node's native environment object. (Unpatched, it listed the
 * whole environment on every lookup; patches/inngest+4.24.0.patch makes it read only its names.)
 * Where the executor calls the route in-process, the process swaps `process.env` for a plain
 * object with the same names and values, so those reads are ordinary property reads.
 *
 * Safe here because Easel reads its settings once (lib/env.ts) and never changes the environment
 * at run time; child processes (ffmpeg) get `process.env` from JavaScript, copy or not. What
 * changes: a variable set after this point is seen by JavaScript and by child processes, but not
 * by native code that calls getenv() (Node's own `TZ` handling among it).
 */
let swapped = false;

export function keepEnvironmentInPlainObject() {
  if (swapped) return;
  swapped = true;
  process.env = { ...process.env };
}
