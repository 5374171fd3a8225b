import type { Layout } from "../disk/layout";
import type { PayloadPolicy } from "./sigv4";

/** One authenticated S3 request, as every operation receives it. */
export type S3Call = {
  lay: Layout;
  req: Request;
  url: URL;
  bucket: string;
  /** "" for requests on the bucket itself. */
  key: string;
  payload: PayloadPolicy;
  now: Date;
};
