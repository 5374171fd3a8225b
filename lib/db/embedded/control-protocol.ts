import net from "node:net";

/**
 * The wire format of the data dir's control channel (see control.ts): a connection that opens with
 * Easel's own startup code carries one JSON request instead of a PostgreSQL session.
 */
export type ControlRequest = { op: string; [k: string]: unknown };

/** Not a protocol version PostgreSQL knows ("EASL"): a real server refuses it, Easel's answers it. */
export const CONTROL_CODE = 0x4541534c;
/** A control request is small; anything longer is not one. */
export const MAX_CONTROL_REQUEST_BYTES = 64 * 1024;

export function encodeControlRequest(request: ControlRequest): Buffer {
  const body = Buffer.from(JSON.stringify(request), "utf8");
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(CONTROL_CODE, 4);
  return Buffer.concat([head, body]);
}

/** "path:/x/easel-1a2b.sock" or "127.0.0.1:5433", as the lock records it. */
export function connectOptions(address: string): net.NetConnectOpts {
  if (address.startsWith("/")) return { path: address };
  const at = address.lastIndexOf(":");
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}

/**
 * Connects to `address` and sends one control request; resolves with the connected socket (the
 * reply follows on it), or rejects when nothing listens there or it does not connect in time.
 */
export function sendControl(address: string, request: ControlRequest, timeoutMs = 2_000): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(connectOptions(address));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no connection to ${address} within ${timeoutMs} ms`), { code: "ETIMEDOUT" }));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.write(encodeControlRequest(request));
      resolve(socket);
    });
    socket.once("error", (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

/** Reads one newline-terminated JSON reply (the `identify` answer), within the deadline. */
export function readJsonLine(socket: net.Socket, timeoutMs: number): Promise<Record<string, unknown> | null> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const done = (value: Record<string, unknown> | null, err?: Error) => {
      clearTimeout(timer);
      socket.removeAllListeners("data");
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(() => done(null, Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: "ETIMEDOUT" })), timeoutMs);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf("\n");
      if (end < 0) {
        if (buffered.length > MAX_CONTROL_REQUEST_BYTES) done(null);
        return;
      }
      try {
        done(JSON.parse(buffered.slice(0, end)) as Record<string, unknown>);
      } catch {
        done(null);
      }
    });
    // Closed without a full answer: whatever listens there is not an Easel owner.
    socket.once("close", () => done(null));
    socket.once("error", () => done(null));
  });
}
