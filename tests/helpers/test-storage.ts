import { expect } from "vitest";
import type { Clock } from "../../lib/clock";
import type { Db } from "../../lib/db";
import type { StorageKind } from "../../lib/db/schema";
import type { StorageResolver } from "../../lib/deps";
import { DomainError } from "../../lib/errors";
import { layout } from "../../lib/objectstore/disk/layout";
import { listUploads } from "../../lib/objectstore/disk/multipart";
import { bucketExists, headObject, listAllObjects } from "../../lib/objectstore/disk/objects";
import { EMBEDDED_BUCKET } from "../../lib/objectstore/identity";
import { GCS_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { storedBytes, tempDir } from "../../lib/objectstore/testing/fixtures";
import { storageFor } from "../../lib/storage";
import type { ObjectInfo, PreparedUpload, StorageDriver } from "../../lib/storage/types";
import { StoreRoutes } from "./store-routes";

/** The origin of the requests tests send to route handlers (tests/helpers/call-route.ts). */
export const TEST_ORIGIN = "http://easel.test";

/** What upload_prepare answers, as far as a client sending the bytes needs it. */
export type Prepared = { upload_url: string; multipart_upload_id: string | null; part_size: number | null; part_urls: string[] | null };

/**
 * One storage kind of a test's Easel on the real embedded store (its files in a folder of the
 * test file's own): Easel's own driver (storageFor), plus what tests do from outside. A test
 * acts as the client (`send`, `sendPart`: the bytes go to the presigned URLs, as a browser sends
 * them) and looks at the store's files (`has`, `bytes`, `keys`, `hasUpload`), which neither a
 * fault below nor a replaced method changes.
 *
 * Faults: `down = true` makes every driver call throw storage_unavailable, as an unreachable
 * store does; a test may also replace one method on this object (`storage.write = ...`). Easel
 * gets views of this object (`at`), so both reach every driver it resolves, the jobs' included.
 */
export class TestStorage implements StorageDriver {
  down = false;
  /** The origin this driver's URLs are on; views made by `at` have their own. */
  readonly baseUrl: string = TEST_ORIGIN;
  private readonly drivers = new Map<string, StorageDriver>();
  private readonly views = new Map<string, TestStorage>();

  constructor(
    readonly kind: StorageKind,
    private readonly routes: StoreRoutes,
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** This storage handing out URLs on `baseUrl` (what Easel's storage resolver asks for). */
  at(baseUrl: string): StorageDriver {
    let view = this.views.get(baseUrl);
    // A prototype view: it reads `down` and any replaced method from this object at call time.
    if (!view) this.views.set(baseUrl, (view = Object.create(this, { baseUrl: { value: baseUrl } }) as TestStorage));
    return view;
  }

  /** Easel's driver for this origin, the store up or not: what the test itself uses to arrange objects. */
  private real(): StorageDriver {
    let driver = this.drivers.get(this.baseUrl);
    if (!driver) {
      this.routes.listenOn(this.baseUrl);
      driver = storageFor(this.kind, { baseUrl: this.baseUrl, db: this.db, clock: this.clock, embeddedLayout: this.routes.lay });
      this.drivers.set(this.baseUrl, driver);
    }
    return driver;
  }

  private driver(): StorageDriver {
    if (this.down) throw new DomainError("storage_unavailable", "storage is down (test)");
    return this.real();
  }

  async prepareUpload(input: { key: string; size: number; contentType: string; expiresAt: Date }): Promise<PreparedUpload> {
    return this.driver().prepareUpload(input);
  }
  async completeMultipart(input: { key: string; uploadId: string; expectedParts: number }) {
    return this.driver().completeMultipart(input);
  }
  async abortMultipart(input: { key: string; uploadId: string }) {
    return this.driver().abortMultipart(input);
  }
  async head(key: string): Promise<ObjectInfo | null> {
    return this.driver().head(key);
  }
  async md5(key: string) {
    return this.driver().md5(key);
  }
  async read(key: string, range?: { start: number; end?: number }) {
    return this.driver().read(key, range);
  }
  async write(key: string, body: Buffer | ReadableStream<Uint8Array>, contentType: string) {
    return this.driver().write(key, body, contentType);
  }
  async copy(fromKey: string, toKey: string) {
    return this.driver().copy(fromKey, toKey);
  }
  async delete(key: string) {
    return this.driver().delete(key);
  }
  async signedReadUrl(key: string, opts: { expiresInSeconds: number; responseContentType?: string }) {
    return this.driver().signedReadUrl(key, opts);
  }

  // ---- the client's side ----

  /** Sends the bytes as a browser does, per the prepare answer: each part to its URL, a resumable session (start, then one PUT), or one PUT. */
  async send(prep: Prepared, bytes: Buffer): Promise<void> {
    if (prep.part_urls && prep.part_size) {
      for (let n = 1; n <= prep.part_urls.length; n++) await this.sendPart(prep, n, bytes.subarray((n - 1) * prep.part_size, n * prep.part_size));
      return;
    }
    if (new URL(prep.upload_url).pathname.startsWith(`${GCS_MOUNT_PATH}/`)) {
      const start = await this.routes.fetch(prep.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } });
      expect(start.status, await start.text()).toBe(201);
      const put = await this.routes.fetch(start.headers.get("location")!, { method: "PUT", body: new Uint8Array(bytes) });
      expect(put.status, await put.text()).toBe(200);
      return;
    }
    const put = await this.routes.fetch(prep.upload_url, { method: "PUT", body: new Uint8Array(bytes) });
    expect(put.status, await put.text()).toBe(200);
  }

  /** Sends part `n` (from 1) of a multipart upload to its presigned URL. */
  async sendPart(prep: Prepared, n: number, bytes: Buffer): Promise<void> {
    const url = prep.part_urls?.[n - 1];
    if (!url) throw new Error(`the prepare answer has no URL for part ${n}`);
    const put = await this.routes.fetch(url, { method: "PUT", body: new Uint8Array(bytes) });
    expect(put.status, await put.text()).toBe(200);
  }

  // ---- the store's files ----

  async has(key: string): Promise<boolean> {
    return (await headObject(this.routes.lay, EMBEDDED_BUCKET, key)) !== null;
  }

  /** The whole stored body of `key`; throws when it is not stored. */
  bytes(key: string): Promise<Buffer> {
    return storedBytes(this.routes.lay, key);
  }

  /** Stored keys starting with `prefix`, sorted. */
  async keys(prefix = ""): Promise<string[]> {
    if (!(await bucketExists(this.routes.lay, EMBEDDED_BUCKET))) return [];
    return (await listAllObjects(this.routes.lay, EMBEDDED_BUCKET)).map((o) => o.key).filter((k) => k.startsWith(prefix));
  }

  /** Whether the multipart upload `uploadId` is still open (neither completed nor aborted). */
  async hasUpload(uploadId: string): Promise<boolean> {
    return (await listUploads(this.routes.lay, EMBEDDED_BUCKET)).some((u) => u.uploadId === uploadId);
  }

  /** Stores an object through Easel's driver, as Easel would have (the store up or not). */
  put(key: string, body: Buffer, contentType = "application/octet-stream"): Promise<void> {
    return this.real().write(key, body, contentType);
  }

  /** Deletes an object through Easel's driver, as if something outside Easel had (the store up or not). */
  remove(key: string): Promise<void> {
    return this.real().delete(key);
  }
}

export type TestStores = Record<StorageKind, TestStorage>;

/** Both storage kinds of a test's Easel on one embedded store in a fresh folder, its URLs answered in-process. */
export function testStores(db: Db, clock: Clock): TestStores {
  const routes = new StoreRoutes(layout(tempDir("store")), db, clock);
  return { s3: new TestStorage("s3", routes, db, clock), gcs: new TestStorage("gcs", routes, db, clock) };
}

/** Easel's storage resolver over these stores: a view per origin it asks for. */
export const resolverOf = (stores: TestStores): StorageResolver => (kind, baseUrl) => stores[kind].at(baseUrl);

/** The storage key an upload URL names: its path below `/storage/<kind>/easel/`. */
export function keyOf(uploadUrl: string): string {
  const path = new URL(uploadUrl).pathname;
  const m = /^\/storage\/(?:s3|gcs)\/easel\/(.+)$/.exec(path);
  if (!m) throw new Error(`not an upload URL of the embedded store: ${uploadUrl}`);
  return m[1].split("/").map(decodeURIComponent).join("/");
}
