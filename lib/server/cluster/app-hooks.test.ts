import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { notifyWork, onWork } from "../../jobs/executor/signal";
import { relayWakeUps } from "./app-hooks";
import { MESSAGES } from "./messages.mjs";

// The jobs wake-up across workers: a member turns its local wake-ups into one message per tick;
// the owner turns that message (relayed by the primary) into a local wake-up of its executor.
const STATE = Symbol.for("easel.cluster");
const setRole = (role: "owner" | "member") => ((globalThis as Record<symbol, unknown>)[STATE] = { role, executorWanted: true });
const tick = () => new Promise((r) => setImmediate(r));
const cleanups: (() => void)[] = [];

afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  delete (globalThis as Record<symbol, unknown>)[STATE];
});

function ipc() {
  const sent: unknown[] = [];
  const inbox = new EventEmitter();
  const stop = relayWakeUps({ send: (m) => sent.push(m), onMessage: (listener) => void inbox.on("message", listener) });
  cleanups.push(stop, () => inbox.removeAllListeners());
  return { sent, deliver: (m: unknown) => inbox.emit("message", m) };
}

describe("waking the owner's executor from a member", () => {
  it("a member sends one message for the wake-ups of a tick", async () => {
    setRole("member");
    const { sent } = ipc();
    notifyWork();
    notifyWork();
    notifyWork();
    await tick();
    expect(sent).toEqual([{ type: MESSAGES.jobsWake }]);
    notifyWork();
    await tick();
    expect(sent).toHaveLength(2);
  });

  it("the owner wakes its executor on the message, and sends none itself", async () => {
    setRole("owner");
    const { sent, deliver } = ipc();
    let woken = 0;
    cleanups.push(onWork(() => woken++));
    deliver({ type: MESSAGES.jobsWake });
    expect(woken).toBe(1);
    deliver({ type: "something else" });
    expect(woken).toBe(1);
    await tick();
    expect(sent).toEqual([]);
  });

  it("a member ignores the message (it has no executor to wake, and must not send it back)", async () => {
    setRole("member");
    const { sent, deliver } = ipc();
    let woken = 0;
    cleanups.push(onWork(() => woken++));
    deliver({ type: MESSAGES.jobsWake });
    await tick();
    expect(woken).toBe(0);
    expect(sent).toEqual([]);
  });
});
