/**
 * Loaded into the server by bench/memory (NODE_OPTIONS=--import …/probe.mjs): every 200 ms it
 * writes the process's memory breakdown, current and peak, to $EASEL_MEMORY_PROBE_FILE —
 * process.memoryUsage() plus the size of every WebAssembly linear memory (PGlite's PostgreSQL
 * heap), which memoryUsage() does not count.
 */
import fs from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";

const file = process.env.EASEL_MEMORY_PROBE_FILE;
if (file) {
  const memories = new Set();
  const seen = new WeakSet();
  const keep = (m) => {
    if (!(m instanceof WebAssembly.Memory) || seen.has(m)) return;
    seen.add(m);
    memories.add(new WeakRef(m));
  };
  const scan = (instance) => {
    for (const v of Object.values(instance?.exports ?? {})) keep(v);
    return instance;
  };
  const W = WebAssembly;
  const OrigMemory = W.Memory;
  W.Memory = new Proxy(OrigMemory, { construct: (t, args) => { const m = Reflect.construct(t, args); keep(m); return m; } });
  W.Instance = new Proxy(W.Instance, { construct: (t, args) => scan(Reflect.construct(t, args)) });
  const instantiate = W.instantiate;
  W.instantiate = async (...args) => {
    const r = await instantiate.apply(W, args);
    scan(r.instance ?? r);
    return r;
  };
  const streaming = W.instantiateStreaming;
  if (streaming) W.instantiateStreaming = async (...args) => {
    const r = await streaming.apply(W, args);
    scan(r.instance);
    return r;
  };

  const peak = {};
  const sample = () => {
    const sizes = [];
    for (const ref of memories) {
      const m = ref.deref();
      if (m) sizes.push(m.buffer.byteLength);
      else memories.delete(ref);
    }
    const now = { ...process.memoryUsage(), wasm: sizes.reduce((a, b) => a + b, 0) };
    for (const [k, v] of Object.entries(now)) peak[k] = Math.max(peak[k] ?? 0, v);
    try {
      // wasmSizes: each live WebAssembly memory (PGlite's PostgreSQL, and while it lives, its initdb).
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ now, peak, wasmSizes: sizes }));
      fs.renameSync(`${file}.tmp`, file);
    } catch {}
  };
  setInterval(sample, 200).unref();
  // `touch ${file}.reset` starts a new peak; `touch ${file}.gc` runs a full garbage collection
  // (to tell memory still in use from garbage V8 has not collected yet).
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  setInterval(() => {
    if (fs.existsSync(`${file}.reset`)) {
      for (const k of Object.keys(peak)) delete peak[k];
      fs.rmSync(`${file}.reset`, { force: true });
    }
    if (fs.existsSync(`${file}.gc`)) {
      fs.rmSync(`${file}.gc`, { force: true });
      gc();
    }
  }, 100).unref();
}
