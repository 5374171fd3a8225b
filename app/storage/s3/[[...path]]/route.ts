// /storage/s3/:bucket/:key — the embedded object store's S3 endpoint (signed requests only; see docs/storage.md).
// `npm start` answers these paths before Next.js (lib/server/direct-routes.ts); this file serves them under `next dev`.
import { serveS3 } from "@/lib/objectstore";

export const dynamic = "force-dynamic";

const handle = (req: Request) => serveS3(req);

export { handle as GET, handle as HEAD, handle as PUT, handle as POST, handle as DELETE, handle as OPTIONS };
