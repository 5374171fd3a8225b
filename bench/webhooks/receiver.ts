import http from "node:http";
import type { AddressInfo } from "node:net";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Arrival = { path: string; assetId: number; title: string; at: number };

/** One server on 127.0.0.1, a path per trigger; every request is answered 200 at once and timed on arrival. */
export async function startReceiver() {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      res.writeHead(200).end("ok");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { asset: { id: number; title: string } };
      arrivals.push({ path: req.url ?? "/", assetId: body.asset.id, title: body.asset.title, at });
    });
  });
  // Node's default (5 s) unless BENCH_RECEIVER_KEEP_ALIVE_MS says otherwise. At 1 s or less, Node's
  // HTTP client never reuses a connection: it takes the receiver's `Keep-Alive: timeout=1` hint
  // minus a second of margin, so every delivery opens a connection of its own.
  server.keepAliveTimeout = Number(process.env.BENCH_RECEIVER_KEEP_ALIVE_MS ?? 5000);
  // Connections opened to the receiver: how well the sender's keep-alive pools held.
  let connections = 0;
  server.on("connection", () => void connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (p: string) => `http://127.0.0.1:${port}${p}`,
    arrivals,
    connections: () => connections,
    /**
     * Resolves when `done()` holds or the deadline (a performance.now() time) passes. Looks every
     * 50 ms, not at every arrival: `done()` scans the arrivals, and at thousands of deliveries a
     * second a scan per arrival cost this process more CPU than the deliveries themselves. Arrival
     * times are taken as requests come in, so how often this looks changes no figure.
     */
    async until(done: () => boolean, deadline: number) {
      while (!done() && performance.now() < deadline) await sleep(50);
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

export function percentile(sorted: number[], p: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}
