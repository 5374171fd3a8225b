import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { stopNode } from "../../bench/scale/cluster";
import { startClientsServer } from "./clients";

/** One server for the whole suite (each test file works in a bucket of its own); stopped and its data dir removed at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), "easel-clients-server-"));
  const remove = () => fs.promises.rm(work, { recursive: true, force: true });
  try {
    const { node, store } = await startClientsServer(work);
    project.provide("clientsStore", store);
    return async () => {
      await stopNode(node);
      await remove();
    };
  } catch (err) {
    await remove();
    throw err;
  }
}
