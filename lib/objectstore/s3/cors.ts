import { storagePreflight, withStorageCors } from "../cors";

const EXPOSED = "ETag, Content-Length, Content-Range, Content-MD5, x-amz-request-id, x-amz-mp-parts-count";

export const s3Cors = (response: Response) => withStorageCors(response, EXPOSED);
export const s3Preflight = (req: Request) => storagePreflight(req, "GET, HEAD, PUT, POST, DELETE", EXPOSED);
