/**
 * A stand-in for Easel's upload routes and storage, only to inject faults the real server never
 * makes on demand (a 500 on the third part, a connection cut mid-chunk, a hanging answer). It
 * keeps the protocol's shape — upload_prepare's answer, S3 part PUTs and ListParts, the GCS
 * resumable session's 308s and Range, upload_complete's asset — and nothing else. The real
 * server is tested in tests/client.
 */
import crypto from "node:crypto";
import http from "node:http";
import type net from "node:net";

export type Fault = "drop" | "hang" | { status: number; headers?: Record<string, string>; body?: unknown } | null;
export type Seen = { method: string; path: string; headers: http.IncomingHttpHeaders; bytes: number };

type Upload = { id: string; size: number; kind: "s3" | "gcs"; parts: Map<number, Buffer>; single: Buffer | null; gcs: Buffer; completed: boolean };

export type FakeEasel = {
  origin: string;
  seen: Seen[];
  /** Called for every request before it is handled: return a fault to inject it. */
  fault: (req: Seen, count: number) => Fault;
  uploads: Map<string, Upload>;
  inFlightMax: number;
  close: () => Promise<void>;
};

export async function startFakeEasel(opts: { kind: "s3" | "gcs"; partSize?: number }): Promise<FakeEasel> {
  const partSize = opts.partSize ?? 4 * 1024 * 1024;
  const uploads = new Map<string, Upload>();
  const counts = new Map<string, number>();
  let inFlight = 0;
  const sockets = new Set<net.Socket>();
  const state: FakeEasel = { origin: "", seen: [], fault: () => null, uploads, inFlightMax: 0, close: async () => undefined };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const asset = (u: Upload, bytes: Buffer) => ({
    token: `asset-${u.id}`,
    md5: crypto.createHash("md5").update(bytes).digest("hex"),
    size: bytes.length,
    title: "t",
  });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, "http://x");
    const chunks: Buffer[] = [];
    const isStoragePut = req.method === "PUT" && url.pathname.startsWith("/storage/");
    if (isStoragePut) state.inFlightMax = Math.max(state.inFlightMax, ++inFlight);
    let aborted = false;
    req.on("aborted", () => (aborted = true));
    const seen: Seen = { method: req.method!, path: url.pathname, headers: req.headers, bytes: 0 };
    const key = `${req.method} ${url.pathname}`;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    const fault = state.fault(seen, count);
    if (fault === "drop") {
      // Read part of the body, then cut the connection: the client sees a network error.
      req.once("data", () => req.socket.destroy());
      req.once("end", () => req.socket.destroy());
      if (isStoragePut) inFlight--;
      state.seen.push(seen);
      return;
    }
    if (fault === "hang") {
      state.seen.push(seen);
      return;
    }
    for await (const c of req) chunks.push(c as Buffer);
    if (isStoragePut) inFlight--;
    if (aborted) return;
    const body = Buffer.concat(chunks);
    seen.bytes = body.length;
    state.seen.push(seen);
    if (fault) {
      if (fault.body !== undefined) return json(res, fault.status, fault.body, fault.headers);
      res.writeHead(fault.status, fault.headers);
      return res.end();
    }

    const parts = url.pathname.split("/").filter(Boolean);
    if (url.pathname.endsWith("/assets/upload_prepare") && req.method === "POST") {
      const { asset: a } = JSON.parse(body.toString()) as { asset: { size: number } };
      const id = crypto.randomBytes(6).toString("hex");
      const u: Upload = { id, size: a.size, kind: opts.kind, parts: new Map(), single: null, gcs: Buffer.alloc(0), completed: false };
      uploads.set(id, u);
      const multipart = opts.kind === "s3" && a.size >= 5 * 1024 * 1024;
      const count = Math.ceil(a.size / partSize);
      return json(res, 200, {
        data: {
          storage_provider: opts.kind,
          signed_storage_id: `sid-${id}`,
          upload_url: opts.kind === "gcs" ? `${state.origin}/storage/gcs-start/${id}` : `${state.origin}/storage/single/${id}`,
          multipart_upload_id: multipart ? `mp-${id}` : null,
          part_size: multipart ? partSize : null,
          part_urls: multipart ? Array.from({ length: count }, (_, i) => `${state.origin}/storage/part/${id}/${i + 1}`) : null,
          list_parts_url: multipart ? `${state.origin}/storage/list/${id}` : null,
          expires_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
        },
      });
    }
    if (url.pathname.endsWith("/assets/upload_complete") && req.method === "POST") {
      const { asset: a } = JSON.parse(body.toString()) as { asset: { signed_storage_id: string } };
      const u = uploads.get(a.signed_storage_id.replace(/^sid-/, ""));
      if (!u) return json(res, 422, { errors: [{ message: "unknown", extensions: { code: "invalid_signed_storage_id" } }] });
      const bytes = u.single ?? (u.kind === "gcs" ? u.gcs : Buffer.concat([...u.parts.entries()].sort(([x], [y]) => x - y).map(([, b]) => b)));
      if (bytes.length !== u.size) return json(res, 404, { errors: [{ message: "missing bytes", extensions: { code: "storage_object_not_found" } }] });
      u.completed = true;
      return json(res, 200, { data: asset(u, bytes) });
    }
    const u = uploads.get(parts[2]);
    if (!u) return json(res, 404, { errors: [{ message: "no such route", extensions: { code: "route_not_found" } }] });
    if (parts[1] === "single" && req.method === "PUT") {
      u.single = body;
      res.writeHead(200, { etag: '"x"' });
      return res.end();
    }
    if (parts[1] === "part" && req.method === "PUT") {
      u.parts.set(Number(parts[3]), body);
      res.writeHead(200, { etag: '"x"' });
      return res.end();
    }
    if (parts[1] === "list" && req.method === "GET") {
      if (u.completed) return res.writeHead(404).end();
      const xml = [...u.parts.entries()].map(([n, b]) => `<Part><PartNumber>${n}</PartNumber><ETag>"x"</ETag><Size>${b.length}</Size></Part>`).join("");
      res.writeHead(200, { "content-type": "application/xml" });
      return res.end(`<?xml version="1.0"?><ListPartsResult>${xml}</ListPartsResult>`);
    }
    if (parts[1] === "gcs-start" && req.method === "POST") {
      res.writeHead(201, { location: `${state.origin}/storage/gcs-session/${u.id}` });
      return res.end();
    }
    if (parts[1] === "gcs-session" && req.method === "PUT") {
      const range = String(req.headers["content-range"] ?? "");
      const stored = () => (u.gcs.length > 0 ? { range: `bytes=0-${u.gcs.length - 1}` } : undefined);
      if (/^bytes \*\/\d+$/.test(range)) {
        if (u.gcs.length === u.size) return res.writeHead(200).end();
        return res.writeHead(308, stored()).end();
      }
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
      if (!m || Number(m[1]) > u.gcs.length) return res.writeHead(400).end();
      const start = Number(m[1]);
      u.gcs = Buffer.concat([u.gcs, body.subarray(u.gcs.length - start)]);
      if (u.gcs.length === u.size) return res.writeHead(200).end();
      return res.writeHead(308, stored()).end();
    }
    return json(res, 404, { errors: [{ message: "no such route", extensions: { code: "route_not_found" } }] });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  state.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}
