import net from "node:net";

export type Proxy = { port: number; cut: () => Promise<void>; accept: () => Promise<void>; close: () => Promise<void>; open: () => number };

/** A TCP proxy to host:port whose connections can be cut and whose door can be shut and reopened. */
export async function tcpProxy(host: string, port: number): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const own = (server.address() as net.AddressInfo).port;
  return {
    port: own,
    open: () => sockets.size / 2,
    // Stop listening (new connections: ECONNREFUSED), then destroy every live connection.
    cut: async () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    accept: () => new Promise<void>((r) => server.listen(own, "127.0.0.1", r)),
    close: async () => {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
