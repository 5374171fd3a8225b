import type { EaselClient } from "../client";

/** Pages a listing prefetch may read, relative to the files it saves a lookup for: a page of 100 costs about what 4 single lookups do. */
const LOOKUPS_PER_PAGE = 4;

/**
 * Which content is already on the server (the board, or the workspace without one), asked by md5.
 * With many files and few assets it reads the whole listing once (100 a page) instead of one
 * lookup per file; otherwise it asks `?md5=` per file. Within one run, a second file with the
 * same content waits for the first one's outcome instead of uploading it again.
 */
export class KnownContent {
  #prefetched: Map<string, string> | null = null;
  #thisRun = new Map<string, Promise<string | null>>();

  constructor(
    private readonly client: EaselClient,
    private readonly workspace: string,
    private readonly board: string | null,
    private readonly signal: AbortSignal,
  ) {}

  #page(page: number, perPage: number, md5?: string) {
    const query = { page: String(page), per_page: String(perPage), ...(md5 ? { md5 } : {}) };
    return this.board
      ? this.client.listBoardAssets({ path: { slug: this.workspace, boardToken: this.board }, query, signal: this.signal })
      : this.client.listAssets({ path: { slug: this.workspace }, query, signal: this.signal });
  }

  /** Reads the whole listing up front when that costs fewer requests than a lookup per file. */
  async prefetch(fileCount: number): Promise<void> {
    if (fileCount <= LOOKUPS_PER_PAGE) return;
    const first = await this.#page(1, 100);
    if (first.pagy.total_pages * LOOKUPS_PER_PAGE > fileCount) return;
    const known = new Map<string, string>();
    const add = (assets: { md5: string; token: string }[]) => assets.forEach((a) => known.has(a.md5) || known.set(a.md5, a.token));
    add(first.data);
    for (let page = 2; page <= first.pagy.total_pages; page++) add((await this.#page(page, 100)).data);
    this.#prefetched = known;
  }

  /** The token of an asset with this md5 on the server, or null. */
  async onServer(md5: string): Promise<string | null> {
    if (this.#prefetched) return this.#prefetched.get(md5) ?? null;
    return (await this.#page(1, 1, md5)).data[0]?.token ?? null;
  }

  /**
   * Claims `md5` for this run: null when the caller is the first file with it (then it must call
   * `settle` with its asset token, or null when it made none), or the token an earlier file of
   * this run got for the same content.
   */
  async claim(md5: string): Promise<{ earlier: string } | { settle: (token: string | null) => void }> {
    for (;;) {
      const pending = this.#thisRun.get(md5);
      if (!pending) break;
      const token = await pending;
      if (token) return { earlier: token };
      // That file failed: this one takes its place (unless a third got there first).
      if (this.#thisRun.get(md5) === pending) this.#thisRun.delete(md5);
    }
    let settle: (token: string | null) => void = () => undefined;
    this.#thisRun.set(md5, new Promise((resolve) => (settle = resolve)));
    return { settle };
  }
}
