// /storage/gcs/:bucket/:object — the embedded object store's GCS endpoint (V4 signed URLs, resumable sessions; see docs/storage.md).
// `npm start` answers these paths before Next.js (lib/server/direct-routes.ts); this file serves them under `next dev`.
import { serveGcs } from "@/lib/objectstore";

export const dynamic = "force-dynamic";

const handle = (req: Request) => serveGcs(req);

export { handle as GET, handle as HEAD, handle as PUT, handle as POST, handle as DELETE, handle as OPTIONS };
