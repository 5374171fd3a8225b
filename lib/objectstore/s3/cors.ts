import { storagePreflight, withStorageCors } from "../cors";

const CHECKSUMS = "x-amz-checksum-crc32, x-amz-checksum-crc32c, x-amz-checksum-crc64nvme, x-amz-checksum-sha1, x-amz-checksum-sha256, x-amz-checksum-type";
const EXPOSED = `ETag, Content-Length, Content-Range, Content-MD5, x-amz-request-id, x-amz-mp-parts-count, ${CHECKSUMS}`;

export const s3Cors = (response: Response) => withStorageCors(response, EXPOSED);
export const s3Preflight = (req: Request) => storagePreflight(req, "GET, HEAD, PUT, POST, DELETE", EXPOSED);
