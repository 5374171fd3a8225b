import net from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { log } from "../../log/logger.mjs";
import { controlHandler, type OwnerContext } from "./control";
import { CONTROL_CODE, MAX_CONTROL_REQUEST_BYTES, type ControlRequest } from "./control-protocol";

/**
 * Serves an in-process PGlite over the PostgreSQL wire protocol (a unix socket or loopback TCP),
 * so the CLI, psql and other tools reach the database while the server owns its data dir.
 *
 * PGlite is one session. A client's messages are run in batches that end at Sync ('S'), a simple
 * Query ('Q'), the startup packet or Terminate ('X'), each batch under PGlite's transaction *and*
 * query locks. So an in-process `db.transaction()` never sees a socket statement land inside it,
 * and an in-process query never lands between a socket client's Parse and Bind.
 *
 * It listens before the database is open: the data-dir lock names this socket from its first
 * moment, and its owner proves it lives by answering control requests (control.ts) such as
 * `identify` at once. PostgreSQL sessions that arrive early wait until `ready()`.
 *
 * What it does not cover: a socket client that opens its own transaction (BEGIN … COMMIT over
 * several batches) shares the session with the app between its batches. Easel's CLI never does;
 * other clients must not write inside explicit transactions over this socket.
 */
export class WireServer {
  private server: net.Server | null = null;
  private sockets = new Set<net.Socket>();
  private owner: OwnerContext | null = null;
  private markReady!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.markReady = resolve));

  /** `instance`: what `identify` answers (the id written in the data-dir lock). */
  constructor(
    private pgOrNull: PGlite | null,
    private readonly identity: { instance: string; role: string; dataDir: string } = { instance: "", role: "server", dataDir: "" },
  ) {
    if (pgOrNull) this.ready(pgOrNull);
  }

  /** The database is open (and migrated): sessions waiting for it start. */
  ready(pg: PGlite) {
    this.pgOrNull = pg;
    this.owner = { pg, dataDir: this.identity.dataDir };
    this.markReady();
  }

  private get pg(): PGlite {
    if (!this.pgOrNull) throw new Error("the embedded database is not open yet");
    return this.pgOrNull;
  }

  async listen(where: { path: string } | { host: string; port: number }): Promise<string> {
    const server = net.createServer((socket) => this.attach(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      if ("path" in where) server.listen(where.path, resolve);
      else server.listen(where.port, where.host, resolve);
    });
    const addr = server.address();
    return typeof addr === "string" ? addr : `${addr?.address}:${addr?.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private attach(socket: net.Socket) {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    let batch: Buffer[] = [];
    let started = false;
    let chain = Promise.resolve();
    const write = (chunk: Uint8Array) => socket.writable && socket.write(chunk);
    // Batches that arrived while this client holds the session between two of its own batches.
    const arrived: Buffer[] = [];
    let waiting: ((messages: Buffer | null) => void) | null = null;
    let closed = false;
    const nextBatch = () =>
      new Promise<Buffer | null>((resolve) => {
        if (arrived.length) return resolve(arrived.shift()!);
        if (closed) return resolve(null);
        const timer = setTimeout(() => {
          waiting = null;
          resolve(null);
        }, HOLD_FOR_EXECUTE_MS);
        waiting = (messages) => {
          clearTimeout(timer);
          waiting = null;
          resolve(messages);
        };
      });

    const run = (messages: Buffer, typed = true) => {
      if (waiting) return waiting(messages);
      arrived.push(messages);
      chain = chain
        .then(() => this.opened)
        .then(async () => {
          const first = arrived.shift();
          if (first) await this.exclusive(first, typed ? nextBatch : async () => null, write);
        })
        .catch(() => {
          socket.destroy();
        });
    };

    socket.on("data", (data) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        if (!started) {
          if (pending.length < 8) return;
          const len = pending.readInt32BE(0);
          const code = pending.readInt32BE(4);
          if (code === 80877103 /* SSLRequest */ || code === 80877104 /* GSSENCRequest */) {
            pending = pending.subarray(8);
            socket.write("N");
            continue;
          }
          if (code === 80877102 /* CancelRequest: unsupported */) {
            socket.destroy();
            return;
          }
          if (code === CONTROL_CODE) {
            if (len > MAX_CONTROL_REQUEST_BYTES || len < 8) {
              socket.destroy();
              return;
            }
            if (pending.length < len) return;
            const body = pending.subarray(8, len).toString("utf8");
            socket.removeAllListeners("data");
            this.control(body, socket);
            return;
          }
          if (pending.length < len) return;
          run(Buffer.from(pending.subarray(0, len)), false);
          pending = pending.subarray(len);
          started = true;
          continue;
        }
        if (pending.length < 5) return;
        const len = 1 + pending.readInt32BE(1);
        if (pending.length < len) return;
        const type = String.fromCharCode(pending[0]);
        const message = Buffer.from(pending.subarray(0, len));
        pending = pending.subarray(len);
        if (type === "X") {
          socket.end();
          return;
        }
        batch.push(message);
        if (type === "S" || type === "Q" || type === "H") {
          run(Buffer.concat(batch));
          batch = [];
        }
      }
    });
    const drop = () => {
      this.sockets.delete(socket);
      closed = true;
      waiting?.(null);
      chain = chain.then(() => this.rollbackIfLeftOpen());
    };
    socket.on("close", drop);
    socket.on("error", () => socket.destroy());
  }

  /** One control request: `identify` here, anything else by its registered handler. */
  private control(body: string, socket: net.Socket) {
    let request: ControlRequest;
    try {
      request = JSON.parse(body) as ControlRequest;
      if (typeof request?.op !== "string") throw new Error("no op");
    } catch {
      socket.end(`${JSON.stringify({ error: "a control request is a JSON object with an op" })}\n`);
      return;
    }
    if (request.op === "identify") {
      socket.end(`${JSON.stringify({ instance: this.identity.instance, pid: process.pid, role: this.identity.role })}\n`);
      return;
    }
    const handler = controlHandler(request.op);
    if (!handler) {
      socket.end(`${JSON.stringify({ error: `no control operation "${request.op}"` })}\n`);
      return;
    }
    void this.opened
      .then(() => handler(request, socket, this.owner!))
      .catch((err: Error) => {
        log().error({ component: "database", op: request.op, err }, "data dir control operation failed; its connection is closed");
        socket.destroy(err);
      });
  }

  /**
   * Runs a client's batch with the session to itself. A batch that parses the unnamed statement
   * without executing it (postgres.js without named statements asks a parameterized query's types
   * first: Parse, Describe, Sync; then Bind, Execute, Sync) keeps the session until the client's
   * next batch has run too: a query of the app's own in between would replace that statement
   * ("unnamed prepared statement does not exist"). A client that never sends it is let go after
   * HOLD_FOR_EXECUTE_MS.
   */
  private async exclusive(first: Buffer, next: () => Promise<Buffer | null>, onRawData: (chunk: Uint8Array) => unknown) {
    await withExclusiveSession(this.pg, async () => {
      let messages: Buffer | null = first;
      while (messages) {
        await this.pg.execProtocolRawStream(new Uint8Array(messages), { onRawData });
        messages = leavesUnnamedStatement(messages) ? await next() : null;
      }
    });
  }

  /** A client that vanished inside its own transaction must not leave the shared session in it. */
  private async rollbackIfLeftOpen() {
    if (!this.pgOrNull || this.pg.closed) return;
    const pg = this.pg;
    // Under both locks: an in-process transaction holds them for its whole length, so the session
    // is in a transaction here only if a socket client left one open. Without them this ROLLBACK
    // could land between the statements of the server's own transaction and end it.
    await withExclusiveSession(pg, async () => {
      if (!pg.isInTransaction()) return;
      await pg.execProtocolRawStream(simpleQuery("ROLLBACK"), { onRawData: () => undefined });
    }).catch((err: Error) => log().error({ component: "database", err }, "could not roll back a transaction a socket client left open"));
  }
}

/** How long a client that parsed the unnamed statement keeps the session waiting for its Execute. */
const HOLD_FOR_EXECUTE_MS = 5_000;

/** Whether a batch of typed messages parses the unnamed statement ('P' with an empty name) and executes nothing ('E'). */
function leavesUnnamedStatement(messages: Buffer): boolean {
  let parsedUnnamed = false;
  for (let at = 0; at + 5 <= messages.length; ) {
    const type = messages[at];
    const length = messages.readInt32BE(at + 1);
    if (type === 0x45 /* E */) return false;
    if (type === 0x50 /* P */ && messages[at + 5] === 0) parsedUnnamed = true;
    at += 1 + length;
  }
  return parsedUnnamed;
}

/** A simple-protocol Query message ('Q'). */
function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, "utf8");
  const message = Buffer.alloc(5 + body.length);
  message.write("Q", 0, "latin1");
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return new Uint8Array(message);
}

/**
 * Runs `fn` while nothing else uses the one PGlite session: no in-process query, no transaction and
 * no socket batch can land until it returns. The protected lock helpers are PGlite's own; taking
 * both keeps a batch atomic (see WireServer).
 */
export async function withExclusiveSession<T>(pg: PGlite, fn: () => Promise<T>): Promise<T> {
  const locks = pg as unknown as {
    _runExclusiveTransaction<R>(fn: () => Promise<R>): Promise<R>;
    _runExclusiveQuery<R>(fn: () => Promise<R>): Promise<R>;
  };
  return locks._runExclusiveTransaction(() => locks._runExclusiveQuery(fn));
}
