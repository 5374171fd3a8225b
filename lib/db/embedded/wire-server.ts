import net from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/**
 * Serves an in-process PGlite over the PostgreSQL wire protocol (a unix socket or loopback TCP),
 * so the CLI, psql and other tools reach the database while the server owns its data dir.
 *
 * PGlite is one session. A client's messages are run in batches that end at Sync ('S'), a simple
 * Query ('Q'), the startup packet or Terminate ('X'), each batch under PGlite's transaction *and*
 * query locks. So an in-process `db.transaction()` never sees a socket statement land inside it,
 * and an in-process query never lands between a socket client's Parse and Bind.
 *
 * What it does not cover: a socket client that opens its own transaction (BEGIN … COMMIT over
 * several batches) shares the session with the app between its batches. Easel's CLI never does;
 * other clients must not write inside explicit transactions over this socket.
 */
export class WireServer {
  private server: net.Server | null = null;
  private sockets = new Set<net.Socket>();

  constructor(private readonly pg: PGlite) {}

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

    const run = (messages: Buffer) => {
      chain = chain
        .then(() => this.exclusive(messages, (chunk) => socket.writable && socket.write(chunk)))
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
          if (pending.length < len) return;
          run(Buffer.from(pending.subarray(0, len)));
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
      chain = chain.then(() => this.rollbackIfLeftOpen());
    };
    socket.on("close", drop);
    socket.on("error", () => socket.destroy());
  }

  private async exclusive(messages: Buffer, onRawData: (chunk: Uint8Array) => unknown) {
    // The protected lock helpers are PGlite's own; taking both keeps a batch atomic (see above).
    const pg = this.pg as unknown as {
      _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
      _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
    };
    await pg._runExclusiveTransaction(() =>
      pg._runExclusiveQuery(() => this.pg.execProtocolRawStream(new Uint8Array(messages), { onRawData })),
    );
  }

  /** A client that vanished inside its own transaction must not leave the shared session in it. */
  private async rollbackIfLeftOpen() {
    if (this.pg.closed) return;
    if (this.pg.isInTransaction()) await this.pg.exec("ROLLBACK").catch(() => undefined);
  }
}
