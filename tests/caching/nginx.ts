import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/**
 * nginx's proxy_cache set up as a CDN sets it up: it keeps what Cache-Control (or Expires) lets a
 * shared cache keep, for as long as it says, keyed by the whole URL (query included), revalidates
 * stale entries with If-None-Match, and ignores no header. Each answer says what the cache did
 * (`X-Cache-Status`: MISS, HIT, BYPASS, EXPIRED, REVALIDATED…).
 */
function config(dir: string, port: number, upstream: string): string {
  // Started as root, nginx would run its worker as `nobody`, which cannot open the temp folder.
  const user = process.getuid?.() === 0 ? "user root;" : "";
  return `
${user}
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy_temp;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=easel:4m max_size=256m inactive=1d use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_cache easel;
      proxy_cache_key $scheme$proxy_host$request_uri;
      proxy_cache_revalidate on;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }
}
`;
}

export type CachingProxy = { origin: string; stop: () => Promise<void> };

/** Starts nginx on a free loopback port in front of `upstream`, its config, cache and pid in a temp folder. */
export async function startCachingProxy(upstream: string): Promise<CachingProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-nginx-"));
  const port = await freePort();
  const conf = path.join(dir, "nginx.conf");
  fs.writeFileSync(conf, config(dir, port, upstream));
  const child: ChildProcess = spawn(NGINX, ["-p", dir, "-c", conf, "-e", path.join(dir, "error.log")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((r) => {
      const s = net.connect(port, "127.0.0.1", () => (s.end(), r(true)));
      s.once("error", () => r(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}${fs.existsSync(path.join(dir, "error.log")) ? fs.readFileSync(path.join(dir, "error.log"), "utf8") : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
