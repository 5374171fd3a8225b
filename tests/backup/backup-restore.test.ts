import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { easel, startHarness, stopHarness, type Harness } from "./helpers";

/**
 * Contract §10, backup and restore of the embedded data dir: a backup taken from a running server
 * while it serves uploads, version writes, reverts and deletes is a consistent point in time;
 * restored into a new dir, a server there serves every asset and version it lists with the bytes
 * and md5 it states.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-backup-"));
const harnesses: Harness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map(stopHarness));
  fs.rmSync(dir, { recursive: true, force: true });
});

it("backs up a server under write load; the restored data dir serves every asset and version with its bytes", { timeout: 600_000 }, async () => {
  const source = path.join(dir, "source");
  const archive = path.join(dir, "nightly.tar.gz");
  const load = startHarness(source, { HARNESS_MODE: "load" });
  harnesses.push(load);
  const token = await load.waitFor("harness:ready");
  // Let the load run, then back up while it goes on.
  while (load.lines("harness:op").length < 10) await new Promise((r) => setTimeout(r, 100));
  const opsBefore = load.lines("harness:op").length;
  const backup = await easel(source, ["backup", archive]);
  const opsDuring = load.lines("harness:op").slice(opsBefore);
  expect(backup.code, backup.stderr + backup.stdout).toBe(0);
  const summary = /^backup: (\S+) (\d+) bytes, (\d+) assets, (\d+) versions, (\d+) objects$/.exec(backup.last);
  expect(summary, backup.stdout).not.toBeNull();
  const [, file, bytes, assets, versions, objects] = summary!;
  expect(file).toBe(archive);
  expect(Number(bytes)).toBe(fs.statSync(archive).size);
  // Each of the load's three workers keeps at least three assets of its own (it deletes only from
  // four). Versions have no such floor: a delete takes an asset's history with it, and the uploads
  // that replace it have none yet; the restore below must list exactly the counts printed here.
  expect(Number(assets)).toBeGreaterThanOrEqual(9);
  expect(Number(objects)).toBeGreaterThanOrEqual(Number(assets));
  expect(backup.stdout).toMatch(/taken by the running server; the database was locked for \d+ ms/);
  expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
  // The server kept writing (deletes included) while the archive was streamed.
  expect(opsDuring.length, "operations during the backup").toBeGreaterThan(0);
  await stopHarness(load);
  const stats = JSON.parse(load.lines("harness:stats")[0].slice("harness:stats".length));
  expect(stats.unexpected, JSON.stringify(stats)).toEqual([]);
  expect(stats.delete).toBeGreaterThan(0);
  // The hold is over and its copy gone: nothing of the backup stays in the data dir.
  expect(fs.readdirSync(source).filter((n) => n.startsWith(".backup-"))).toEqual([]);
  const journals = path.join(source, "objects", ".holds");
  expect(fs.existsSync(journals) ? fs.readdirSync(journals) : []).toEqual([]);

  const restored = path.join(dir, "restored");
  // On another machine: the archive and the backup key kept apart from it are all there is.
  expect(backup.stdout).toMatch(/signed with the backup key [0-9a-f]{16} in .*backup\.key: keep a copy/);
  const restore = await easel(path.join(dir, "unused"), ["restore", archive, "--data-dir", restored, "--key-file", path.join(source, "backup.key")]);
  expect(restore.code, restore.stderr).toBe(0);
  expect(restore.last).toContain(`${assets} assets, ${versions} versions, ${objects} objects`);

  const verifier = startHarness(restored, { HARNESS_MODE: "verify", HARNESS_TOKEN: token });
  harnesses.push(verifier);
  const verified = JSON.parse(await verifier.waitFor("harness:verified", 300_000));
  expect(verified.problems).toEqual([]);
  expect(verified).toMatchObject({ assets: Number(assets), versions: Number(versions), database: { assets: Number(assets), versions: Number(versions) } });
  await stopHarness(verifier);

  const verify = await easel(restored, ["storage", "verify"]);
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  expect(verify.last).toMatch(/^verify: \d+ objects checked, 0 missing, 0 corrupt$/);

  // With no server running the CLI makes the backup itself, of the restored dir: the same data.
  const again = await easel(restored, ["backup", path.join(dir, "again.tar")]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain("taken by this process (no server running)");
  expect(again.last).toMatch(new RegExp(`, ${assets} assets, ${versions} versions, ${objects} objects$`));
});
