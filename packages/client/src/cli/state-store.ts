import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ResumeState, ResumeStore } from "../upload/upload-file";

/**
 * The command's memory of unfinished uploads, one JSON file per upload under
 * $XDG_STATE_HOME/easel-client/uploads (default ~/.local/state): the file's md5 and the
 * reservation (plus a gcs session) of its upload. A file is named by a hash of the server, the
 * workspace, the board and the file itself (absolute path, size, modification time), so running
 * the same command again finds it, and a changed file starts over. Each write replaces the file
 * whole (write, then rename), so a kill -9 leaves the old record or the new one, never half.
 */
export type UploadRecord = { md5: string | null; resume: ResumeState | null };

export function stateDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), ".local", "state");
  return path.join(base, "easel-client", "uploads");
}

export type FileIdentity = { url: string; workspace: string; board: string | null; absolutePath: string; size: number; mtimeMs: number };

export class UploadStateFile {
  readonly file: string;
  #record: UploadRecord = { md5: null, resume: null };

  constructor(dir: string, identity: FileIdentity) {
    const key = crypto.createHash("sha256").update(JSON.stringify([identity.url, identity.workspace, identity.board, identity.absolutePath, identity.size, identity.mtimeMs])).digest("hex");
    this.file = path.join(dir, `${key.slice(0, 40)}.json`);
  }

  /** What an earlier run left (an unreadable record counts as none: the upload starts over). */
  async read(): Promise<UploadRecord> {
    try {
      const parsed = JSON.parse(await fs.promises.readFile(this.file, "utf8")) as Partial<UploadRecord>;
      this.#record = { md5: typeof parsed.md5 === "string" ? parsed.md5 : null, resume: parsed.resume?.prepared ? parsed.resume : null };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") process.stderr.write(`easel-client: ignoring unreadable state ${this.file}: ${(err as Error).message}\n`);
    }
    return this.#record;
  }

  async write(change: Partial<UploadRecord>): Promise<void> {
    this.#record = { ...this.#record, ...change };
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    await fs.promises.writeFile(temp, JSON.stringify(this.#record), { mode: 0o600 });
    await fs.promises.rename(temp, this.file);
  }

  async remove(): Promise<void> {
    await fs.promises.rm(this.file, { force: true });
  }

  /** The ResumeStore uploadFile saves its reservation through. */
  resumeStore(): ResumeStore {
    return { load: () => this.#record.resume, save: (resume) => this.write({ resume }) };
  }
}
