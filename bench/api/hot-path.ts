/**
 * bench/api/hot-path: what Easel's server adds to every request for metrics and the access log,
 * measured in-process, one piece at a time, without HTTP, a database or Next.js around it (on a
 * shared machine those move a load test's figures by more than these pieces cost). Each piece runs
 * in a loop of many iterations after a warm-up; the figure is wall time per iteration, median of
 * five runs.
 *
 *   npx tsx bench/api/hot-path.ts
 */
import { AsyncLocalStorage } from "node:async_hooks";
import os from "node:os";
import pino from "pino";
import { createLogger, setLogger, log, withLogContext } from "../../lib/log/logger.mjs";
import { collectProcessMetrics, recordRequest, renderMetrics } from "../../lib/metrics/registry.mjs";
import { appRouteMatcher } from "../../lib/metrics/routes.mjs";

const N = 200_000;
const paths = ["/v1/bench/assets/Zq7AbCdEfGh", "/v1/bench/boards/Bx9YtRe/assets", "/storage/s3/easel/ws/1/abc.bin", "/no/such/path", "/healthz"];
const routeOf = appRouteMatcher((m) => console.warn(m));

function time(name: string, iterations: number, body: (i: number) => void): number {
  for (let i = 0; i < Math.min(iterations, 20_000); i++) body(i); // warm-up: compiled, caches filled
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) body(i);
    runs.push(Number(process.hrtime.bigint() - t0) / iterations);
  }
  const median = runs.sort((a, b) => a - b)[2];
  console.log(`${name.padEnd(58)} ${median >= 1000 ? `${(median / 1000).toFixed(2)} µs` : `${median.toFixed(0)} ns`}`.padEnd(70));
  return median;
}

async function main() {
  console.log(`node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  const match = time("route template of a path (5 paths in turn)", N, (i) => void routeOf(paths[i % paths.length]));
  const count = time("recordRequest: counter + histogram, series cached", N, (i) => recordRequest("GET", "/v1/[slug]/assets/[token]", 200, (i % 100) / 1000));
  // The access line as the server writes it, to /dev/null through the same synchronous destination.
  setLogger(createLogger({ level: "info", format: "json", destination: pino.destination({ dest: "/dev/null", sync: true }) }));
  const line = time("access log line (info, JSON, scrubbed, to /dev/null)", N / 4, (i) =>
    log().info({ request_id: "6f1c1e0e-6d2b-4b7e-9a52-1f0f5b1a2c3d", method: "GET", route: "/v1/[slug]/assets/[token]", status: 200, duration_ms: i % 50 }, "request"),
  );
  setLogger(createLogger({ level: "warn", format: "json", destination: pino.destination({ dest: "/dev/null", sync: true }) }));
  time("access log line when the level is warn (skipped)", N, () => void (log().isLevelEnabled("info") && log().info({}, "request")));
  const context = time("withLogContext({ request_id }) around a call", N, () => withLogContext({ request_id: "x" }, () => undefined));
  const baseline = new AsyncLocalStorage<object>();
  time("  (AsyncLocalStorage.run alone, for comparison)", N, () => baseline.run({}, () => undefined));
  // A scrape as a server answers it: the process's own metrics too, and a route's worth of series.
  collectProcessMetrics();
  for (const route of ["/v1/[slug]/assets/[token]", "/v1/[slug]/boards", "/storage/s3/[[...path]]", "/healthz", "unmatched"]) {
    for (const status of [200, 404]) recordRequest("GET", route, status, 0.01);
  }
  await renderMetrics(); // the first render of the process metrics sets up their collectors
  const scrapes: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 21; i++) {
    const t0 = performance.now();
    bytes = (await renderMetrics()).body.length;
    scrapes.push(performance.now() - t0);
  }
  console.log(`${"a scrape: render the registry (median of 21)".padEnd(58)} ${scrapes.sort((a, b) => a - b)[10].toFixed(2)} ms, ${(bytes / 1024).toFixed(0)} KiB`);
  console.log(`per request with metrics on: ${((match + count) / 1000).toFixed(2)} µs for metrics, ${(line / 1000).toFixed(2)} µs for the access line, ${(context / 1000).toFixed(2)} µs for the log context`);
}

void main();
