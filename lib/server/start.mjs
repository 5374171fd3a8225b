// @ts-check
/**
 * `npm start`: Easel's HTTP server (lib/server/http-server.mjs) with Next.js in this process.
 *
 *   node lib/server/start.mjs [-p PORT] [-H HOST]      PORT defaults to $PORT, then 3000
 *
 * Next.js runs instrumentation.ts's register() here as it starts: that opens the database, starts
 * the job executor and publishes the direct routes on a global symbol (this file is plain Node.js
 * and cannot import the app's TypeScript, which Next.js has bundled).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { createEaselServer } from "./http-server.mjs";

/** @param {string[]} argv */
function options(argv) {
  /** @type {{ port: number, hostname: string | undefined }} */
  const opts = { port: Number(process.env.PORT || 3000), hostname: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "-p" || flag === "--port") opts.port = Number(value());
    else if (flag === "-H" || flag === "--hostname") opts.hostname = value();
    else throw new Error(`unknown option ${argv[i]} (usage: start.mjs [-p PORT] [-H HOST])`);
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new Error(`invalid port: ${opts.port}`);
  return opts;
}

async function main() {
  const { port, hostname } = options(process.argv.slice(2));
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const app = next({ dev: false, dir, hostname: hostname ?? "localhost", port });
  await app.prepare();
  const server = createEaselServer(app.getRequestHandler());
  server.on("error", (err) => {
    console.error(`[easel] cannot listen on ${hostname ?? "*"}:${port}: ${err.message}`);
    process.exit(1);
  });
  server.listen(port, hostname, () => console.log(`[easel] ready on http://${hostname ?? "localhost"}:${port}`));

  // Stop taking connections, let requests in flight finish, then close Next.js (as `next start` does).
  let stopping = false;
  /** @param {NodeJS.Signals} signal */
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    server.close(() => {
      app.close().catch(console.error).finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
    });
    server.closeIdleConnections();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err) => {
  console.error(`[easel] cannot start: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
