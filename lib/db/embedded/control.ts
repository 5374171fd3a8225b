import type net from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { sendControl, type ControlRequest } from "./control-protocol";
import { probeHolder } from "./data-dir-lock";

export type { ControlRequest } from "./control-protocol";

/**
 * The control channel of a data dir's owner. The owner's socket speaks the PostgreSQL wire
 * protocol; a connection that opens with Easel's own startup code instead carries one control
 * request (a JSON object with an `op`) and gets the handler's reply on the same connection.
 *
 * `identify` is built in (wire-server.ts): the owner answers its random instance id, which is what
 * the data-dir lock trusts to tell a live owner from a dead one (a process id can be reused; an
 * instance id answered on the socket named in the lock cannot outlive the process listening on it).
 */
export type OwnerContext = { pg: PGlite; dataDir: string };
export type ControlHandler = (request: ControlRequest, socket: net.Socket, owner: OwnerContext) => Promise<void>;

type Registry = Map<string, ControlHandler>;
const handlers: Registry = ((globalThis as { __easelControlHandlers?: Registry }).__easelControlHandlers ??= new Map());

/** In the owner process: answer `op` on the data dir's socket. */
export function registerControl(op: string, handler: ControlHandler): void {
  handlers.set(op, handler);
}

export function controlHandler(op: string): ControlHandler | undefined {
  return handlers.get(op);
}

/**
 * From any process: sends `request` to the live owner of `dataDir` and resolves with the connected
 * socket, on which the handler's reply follows. Null when no live process owns the dir.
 */
export async function openControl(dataDir: string, request: ControlRequest): Promise<net.Socket | null> {
  const holder = await probeHolder(dataDir);
  if (holder.state !== "live") return null;
  return sendControl(holder.lock.address, request);
}
