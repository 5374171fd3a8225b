// @ts-check
/**
 * The attacker of tests/reliability/slow-bodies.test.ts, in a process of its own so its sockets
 * neither share the server's event loop nor its open-file limit. Sent `{ port, targets, wave,
 * maxHeld }` over IPC, it opens one slow body per target (the headers of a 4 MB PUT and one byte,
 * then nothing) in waves, waiting after each for the refusals to arrive, and reports what came
 * back. It stops early when more than `maxHeld` bodies are held (so a server that refuses nothing
 * fails fast instead of running out of files), keeps the held connections open until told
 * "release", then closes them and exits.
 */
import net from "node:net";

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** @typedef {{ socket: net.Socket, sentAt: number, answeredAt?: number, text: string }} Outcome */

/** @param {number} port @param {string} url @param {string} localAddress @returns {Promise<Outcome>} */
function slowBody(port, url, localAddress) {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress });
    /** @type {Outcome} */
    const outcome = { socket, sentAt: 0, text: "" };
    socket.on("error", () => undefined); // the server closes refused connections: expected
    socket.on("data", (d) => {
      outcome.answeredAt ??= performance.now();
      outcome.text += d.toString("latin1");
    });
    socket.once("connect", () => {
      outcome.sentAt = performance.now();
      socket.write(`PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Length: 4000000\r\n\r\nx`);
      resolve(outcome);
    });
  });
}

/** @param {number[]} xs @param {number} p */
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

process.once("message", async (/** @type {any} */ order) => {
  const { port, targets, wave, maxHeld } = order;
  /** @type {Outcome[]} */
  const outcomes = [];
  let stoppedEarly = false;
  for (let start = 0; start < targets.length && !stoppedEarly; start += wave) {
    const batch = await Promise.all(targets.slice(start, start + wave).map((/** @type {{ url: string, from: string }} */ t) => slowBody(port, t.url, t.from)));
    outcomes.push(...batch);
    // A refusal comes at once; what has no answer after this is a body the server is reading.
    const until = Date.now() + 3_000;
    while (Date.now() < until && outcomes.filter((o) => o.answeredAt === undefined).length > maxHeld) await sleep(25);
    await sleep(50);
    for (const o of batch) if (o.answeredAt !== undefined) o.socket.destroy();
    stoppedEarly = outcomes.filter((o) => o.answeredAt === undefined).length > maxHeld;
  }
  const refused = outcomes.filter((o) => o.answeredAt !== undefined);
  const waits = refused.map((o) => (o.answeredAt ?? 0) - o.sentAt);
  /** @type {Record<string, number>} */
  const statusLines = {};
  for (const o of refused) {
    const line = o.text.split("\r\n")[0];
    statusLines[line] = (statusLines[line] ?? 0) + 1;
  }
  const every = (/** @type {RegExp} */ re) => refused.every((o) => re.test(o.text));
  process.send?.({
    sent: outcomes.length,
    held: outcomes.length - refused.length,
    stoppedEarly,
    statusLines,
    retryAfter: every(/\r\nretry-after: 1\r\n/i),
    connectionClose: every(/\r\nconnection: close\r\n/i),
    slowDown: every(/<Code>SlowDown<\/Code>/),
    sample: refused[0]?.text ?? null,
    waits: { p50: pct(waits, 50), p99: pct(waits, 99), max: Math.max(0, ...waits) },
  });
  process.once("message", () => {
    for (const o of outcomes) o.socket.destroy();
    process.exit(0);
  });
});
