import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * Easel installs the Inngest SDK with a patch (patches/inngest+4.24.0.patch, applied by
 * patch-package at `npm ci`) that takes per-call work out of every call to the serve route:
 * - the schemas that read a call's body are built once, not on every call;
 * - the SDK's environment lookup reads the variables it knows instead of scanning the whole
 *   environment (it runs several times per call).
 * Both builds of the SDK (ESM, which the server bundles, and CommonJS) are checked. These tests
 * fail when the patch is not applied, or when an SDK upgrade moves the code it patches.
 */

const sdkRoot = path.dirname(createRequire(import.meta.url).resolve("inngest")); // its index sits at the root
const requireFromSdk = createRequire(path.join(sdkRoot, "package.json"));

type ParseFnData = (data: unknown, headerVersion: unknown, logger: object) => {
  version: number;
  events: unknown[];
  defers: Record<string, unknown>;
  ctx: { run_id: string; attempt: number } | null;
};
type GetProcessEnv = () => Record<string, unknown>;

async function sdkBuild(kind: "esm" | "cjs") {
  const load = (file: string) => (kind === "esm" ? import(file) : Promise.resolve(requireFromSdk(file)));
  const extension = kind === "esm" ? "js" : "cjs";
  // Each build of the SDK loads the zod build of its own kind.
  const zodFile = requireFromSdk.resolve("zod/v3").replace(/\.cjs$/, `.${extension}`);
  const [functions, env, zod] = await Promise.all([
    load(path.join(sdkRoot, "helpers", `functions.${extension}`)),
    load(path.join(sdkRoot, "helpers", `env.${extension}`)),
    load(zodFile),
  ]);
  return {
    parseFnData: functions.parseFnData as ParseFnData,
    getProcessEnv: env.getProcessEnv as GetProcessEnv,
    ZodType: zod.ZodType as { prototype: object },
  };
}

/**
 * Counts zod schemas built while `work` runs: every schema's constructor binds `this.parse`, which
 * it reads from the prototype once; an accessor there sees each construction.
 */
function schemasBuiltDuring(ZodType: { prototype: object }, work: () => void) {
  const original = Object.getOwnPropertyDescriptor(ZodType.prototype, "parse");
  if (!original) throw new Error("zod's ZodType.prototype.parse moved: this count needs a new hook");
  let built = 0;
  Object.defineProperty(ZodType.prototype, "parse", {
    configurable: true,
    get() {
      built += 1;
      return original.value;
    },
    set(this: object, bound: unknown) {
      Object.defineProperty(this, "parse", { value: bound, writable: true, configurable: true, enumerable: true });
    },
  });
  try {
    work();
  } finally {
    Object.defineProperty(ZodType.prototype, "parse", original);
  }
  return built;
}

const callBody = { version: 2, event: { name: "pin/go", data: {} }, steps: {}, ctx: { run_id: "run-1", attempt: 0 } };
const logger = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

describe.each(["esm", "cjs"] as const)("the patched Inngest SDK (%s build)", (kind) => {
  const originalEnv = process.env;
  afterEach(() => {
    process.env = originalEnv;
  });

  it("reads a call's body without building a schema per call", async () => {
    const { parseFnData, ZodType } = await sdkBuild(kind);
    // The hook itself counts: a schema built on purpose is seen.
    expect(schemasBuiltDuring(ZodType, () => new (ZodType as unknown as new (def: object) => object)({}))).toBe(1);
    parseFnData(callBody, undefined, logger); // the first call for a logger may build its version schema
    const built = schemasBuiltDuring(ZodType, () => {
      for (let i = 0; i < 20; i += 1) parseFnData(callBody, undefined, logger);
    });
    expect(built).toBe(0);
  });

  it("gives every call its own default lists, as when the schema was built per call", async () => {
    const { parseFnData } = await sdkBuild(kind);
    const first = parseFnData(callBody, undefined, logger);
    const second = parseFnData(callBody, undefined, logger);
    expect(first.version).toBe(2);
    expect(first.ctx).toMatchObject({ run_id: "run-1", attempt: 0 });
    first.events.push({ name: "leaked" });
    first.defers.leaked = {};
    expect(second.events).toEqual([]);
    expect(second.defers).toEqual({});
  });

  it("looks up the variables it knows without listing the environment", async () => {
    const { getProcessEnv } = await sdkBuild(kind);
    let listed = 0;
    process.env = new Proxy(
      { ...originalEnv, INNGEST_DEV: "1", INNGEST_SIGNING_KEY: "signkey-test-00", EASEL_UNRELATED: "x" },
      {
        ownKeys(target) {
          listed += 1;
          return Reflect.ownKeys(target);
        },
      },
    );
    const env = getProcessEnv();
    expect(listed).toBe(0);
    expect(env.INNGEST_DEV).toBe("1");
    expect(env.INNGEST_SIGNING_KEY).toBe("signkey-test-00");
    expect(env).not.toHaveProperty("EASEL_UNRELATED");
    expect(JSON.stringify(env)).toBe("{}"); // the SDK's own guard against leaking values stays
  });
});
