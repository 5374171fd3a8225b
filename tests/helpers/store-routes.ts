import type { Clock } from "../../lib/clock";
import type { Db } from "../../lib/db";
import type { Layout } from "../../lib/objectstore/disk/layout";
import { handleGcsRequest } from "../../lib/objectstore/gcs/handler";
import { embeddedGcsIdentity, embeddedS3Credentials } from "../../lib/objectstore/identity";
import { GCS_MOUNT_PATH, S3_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { handleS3Request } from "../../lib/objectstore/s3/handler";

/**
 * The embedded store's /storage/s3 and /storage/gcs routes of a test's Easel, answered in this
 * process: integration tests call route handlers directly and run no HTTP server, yet a client
 * sends its bytes to the presigned URLs Easel hands out. (Easel's own calls to the store need no
 * route: they are served in-process.) A request is shaped as it arrives over HTTP (a Host header, a
 * Content-Length for a body) and served by the store's own handlers, which verify its signature
 * at the test clock.
 */
export class StoreRoutes {
  /** Origins Easel named in the URLs it handed out: the request's origin, the jobs' origin. */
  private readonly origins = new Set<string>();

  constructor(
    readonly lay: Layout,
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Easel handed out URLs on `baseUrl`: requests to its store mounts are answered here. */
  listenOn(baseUrl: string) {
    this.origins.add(new URL(baseUrl).origin);
  }

  answers(url: URL): boolean {
    return this.origins.has(url.origin) && (url.pathname.startsWith(`${S3_MOUNT_PATH}/`) || url.pathname.startsWith(`${GCS_MOUNT_PATH}/`));
  }

  /** A client's request to one of the store's URLs, answered as Easel's route would answer it. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const sent = new Request(url, { ...init, duplex: "half" } as RequestInit);
    const body = sent.body ? Buffer.from(await sent.arrayBuffer()) : null;
    const headers = new Headers(sent.headers);
    headers.set("host", new URL(sent.url).host);
    if (body) headers.set("content-length", String(body.length));
    const req = new Request(sent.url, { method: sent.method, headers, body: body ? new Uint8Array(body) : null });
    if (new URL(req.url).pathname.startsWith(`${GCS_MOUNT_PATH}/`)) {
      return handleGcsRequest(req, { lay: this.lay, identity: () => embeddedGcsIdentity(this.db), clock: this.clock, mountPath: GCS_MOUNT_PATH });
    }
    return handleS3Request(req, { lay: this.lay, credentials: () => embeddedS3Credentials(this.db), clock: this.clock, mountPath: S3_MOUNT_PATH });
  }
}
