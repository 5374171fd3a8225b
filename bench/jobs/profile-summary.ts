/**
 * Summarises a V8 CPU profile (.cpuprofile, from BENCH_CPU_PROF or `node --cpu-prof`): self time
 * by package or source file, the functions with the most self time, and the inclusive time of
 * functions whose name matches a pattern.
 *   npx tsx bench/jobs/profile-summary.ts <file> [--top 30] [--inclusive <regexp>] [--per <n>]
 * `--per n` divides every figure by n (the runs or events of the profiled burst): ms per run.
 */
import { readFileSync } from "node:fs";

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const args = process.argv.slice(2);
const file = args[0];
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const top = Number(opt("--top") ?? 30);
const per = Number(opt("--per") ?? 1);
const inclusive = opt("--inclusive");

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** A package name (node_modules/<pkg>), a source path relative to the repository, or a V8 bucket. */
function group(n: Node): string {
  const url = n.callFrame.url;
  if (!url) return `(${n.callFrame.functionName || "native"})`;
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith("node:")) return url;
  const i = url.indexOf("/lib/");
  if (i >= 0) return url.slice(i + 1).replace(/^file:\/\//, "");
  return url.replace(/^file:\/\//, "").split("/").slice(-2).join("/");
}

const ms = (us: number) => (us / 1000 / per).toFixed(3).padStart(9);
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

const groups = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  add(groups, group(n), us);
  add(fns, `${n.callFrame.functionName || "(anonymous)"}  ${group(n)}:${n.callFrame.lineNumber + 1}`, us);
}

console.log(`total sampled ${ms(totalUs)} ms${per !== 1 ? ` per unit (÷ ${per})` : ""}`);
console.log("\nself time by package / file:");
for (const [k, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${k}`);
console.log("\nself time by function:");
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${k}`);

if (inclusive) {
  const re = new RegExp(inclusive);
  // Inclusive time of a frame: samples whose stack contains a matching frame (counted once per sample).
  const incl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      const key = `${n.callFrame.functionName || "(anonymous)"}  ${group(n)}:${n.callFrame.lineNumber + 1}`;
      if (re.test(key) && !seen.has(key)) {
        seen.add(key);
        add(incl, key, us);
      }
    }
  }
  console.log(`\ninclusive time of frames matching /${inclusive}/:`);
  for (const [k, us] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${k}`);
}
