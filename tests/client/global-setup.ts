import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { stopNode } from "../../bench/scale/cluster";
import { startClientServer } from "./server";

/** One built server for the tier's files; stopped and its data dir removed at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), "easel-client-tier-"));
  const remove = () => fs.promises.rm(work, { recursive: true, force: true });
  try {
    const { node, server } = await startClientServer(work);
    project.provide("clientServer", server);
    return async () => {
      await stopNode(node);
      await remove();
    };
  } catch (err) {
    await remove();
    throw err;
  }
}
