/**
 * CORS for the storage endpoints. Their URLs carry their own signatures and no cookie is ever
 * involved, so any origin may call them; what matters is exposing the headers browser uploaders
 * read (S3: ETag per part; GCS: Location of the session, Range of a resumable upload).
 */
export function withStorageCors(response: Response, exposed: string): Response {
  response.headers.set("access-control-allow-origin", "*");
  response.headers.set("access-control-expose-headers", exposed);
  return response;
}

export function storagePreflight(req: Request, methods: string, exposed: string): Response {
  return new Response(null, {
    status: 200,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": methods,
      // Echo what the browser asks for: signatures, not header allow-lists, protect these URLs.
      "access-control-allow-headers": req.headers.get("access-control-request-headers") ?? "*",
      "access-control-expose-headers": exposed,
      "access-control-max-age": "3000",
    },
  });
}
