/**
 * A successful S3 XML answer. nosniff, as on the error answers (errors.ts): a listing carries
 * object keys a tenant chose, and a browser must read the document as XML and nothing else.
 */
export function xmlAnswer(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "application/xml", "x-content-type-options": "nosniff" } });
}
