import type { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";

/** Group and other permission bits: none of Easel's files under the data dir has any. */
const SHARED_BITS = 0o077;

type Attr = { mode?: number };
type NodeOps = { setattr: (node: unknown, attr: Attr) => void; mknod: (parent: unknown, name: string, mode: number, dev: number) => unknown };
type StreamOps = { setattr: (stream: unknown, attr: Attr) => void };
type EmscriptenModule = { FS: { filesystems: { NODEFS: { node_ops: NodeOps; stream_ops: StreamOps } } } };
type InitResult = Awaited<ReturnType<NodeFS["init"]>>;

const privateAttr = (attr: Attr): Attr => (attr.mode === undefined ? attr : { ...attr, mode: attr.mode & ~SHARED_BITS });

/**
 * PGlite's node filesystem with PostgreSQL's own file modes: 0600 files and 0700 folders, however
 * the process's umask is set.
 *
 * PGlite runs PostgreSQL in WebAssembly, whose file calls Emscripten's NODEFS passes to Node: it
 * creates each file with the mode PostgreSQL asked for under Emscripten's own umask, and it
 * carries out every chmod PostgreSQL makes with Node's chmod, which no umask narrows. A new
 * cluster came out with most files 0666 (pg_hba.conf, WAL, the catalog) and its relcache files
 * are rewritten 0644 after schema changes, even under umask 077. Here creation and chmod lose
 * their group and other bits before they reach Node, so no file is ever shared, not even between
 * a write and a later fix-up.
 */
export class PrivateNodeFS extends NodeFS {
  async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]): Promise<InitResult> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const keepPrivate = (mod: EmscriptenModule) => {
      const { node_ops: nodeOps, stream_ops: streamOps } = mod.FS.filesystems.NODEFS;
      const { setattr, mknod } = nodeOps;
      const streamSetattr = streamOps.setattr;
      nodeOps.setattr = (node, attr) => setattr(node, privateAttr(attr));
      nodeOps.mknod = (parent, name, mode, dev) => mknod(parent, name, mode & ~SHARED_BITS, dev);
      streamOps.setattr = (stream, attr) => streamSetattr(stream, privateAttr(attr));
    };
    // First, before NodeFS mounts the data dir.
    const preRun = [keepPrivate, ...((emscriptenOpts.preRun as unknown[] | undefined) ?? [])];
    return { emscriptenOpts: { ...emscriptenOpts, preRun } as InitResult["emscriptenOpts"] };
  }
}
