/**
 * bench/db/pool-queue: CPU per query of a postgres.js pool kept busy for a long time, chunk by
 * chunk. 16 queries in flight on a pool of 4 connections (every connection busy, as under a load
 * test or a steady stream of requests); each chunk is 10,000 trivial queries. The baseline is the
 * run's own first chunks: a pool whose cost does not depend on how many queries it has run prints
 * the same figure for the last chunks (ratio ≈ 1). Unpatched postgres.js 3.4.9 grows linearly
 * (docs/reliability.md, "A busy pool got slower with every query").
 *
 *   DATABASE_URL=postgres://… npx tsx bench/db/pool-queue.ts [--chunks 20] [--max 4]
 */
import os from "node:os";
import postgres from "postgres";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(argv[argv.indexOf(name) + 1] || fallback) || fallback;
const CHUNKS = option("--chunks", 20);
const MAX = option("--max", 4);
const PER_CHUNK = 10_000;
const IN_FLIGHT = 16;

const url = process.env.DATABASE_URL;
if (!url) throw new Error("set DATABASE_URL to a PostgreSQL server");
const sql = postgres(url, { max: MAX, onnotice: () => undefined });
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

console.log(`node ${process.version}, ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}; ${IN_FLIGHT} in flight on ${MAX} connections, ${PER_CHUNK} queries per chunk`);
const figures: number[] = [];
for (let chunk = 0; chunk < CHUNKS; chunk++) {
  const start = cpuMs();
  let left = PER_CHUNK;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left-- > 0) await sql`select 1`;
    }),
  );
  const perQuery = ((cpuMs() - start) / PER_CHUNK) * 1000;
  figures.push(perQuery);
  console.log(`chunk ${String(chunk + 1).padStart(2)} (${((chunk + 1) * PER_CHUNK).toLocaleString("en")} queries so far): ${perQuery.toFixed(1)} µs of CPU per query`);
}
await sql.end();
// The first chunk warms the JIT up: the baseline is chunks 2-4, against the last three.
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const early = mean(figures.slice(1, 4));
const late = mean(figures.slice(-3));
console.log(`chunks 2-4: ${early.toFixed(1)} µs per query; last three: ${late.toFixed(1)} µs; last / early ${(late / early).toFixed(2)}; load average after ${os.loadavg()[0].toFixed(2)}`);
