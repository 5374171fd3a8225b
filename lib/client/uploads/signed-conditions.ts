/**
 * The headers an upload URL was signed to require, with the one value each can take. Upload URLs
 * for a real bucket (EASEL_S3_BUCKET, EASEL_GCS_BUCKET) are signed with a create-only
 * precondition, so a URL cannot replace its object once the upload is complete; the bucket checks
 * the signature, so a request without the header is refused. The embedded store's URLs sign
 * neither (the store refuses replacement itself), and then nothing is added.
 */
const SIGNED_CONDITIONS: Record<string, [header: string, value: string]> = {
  "if-none-match": ["If-None-Match", "*"],
  "x-goog-if-generation-match": ["x-goog-if-generation-match", "0"],
};

export function signedConditionHeaders(url: string): Record<string, string> {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return {};
  }
  const signed = (params.get("X-Amz-SignedHeaders") ?? params.get("X-Goog-SignedHeaders") ?? "").toLowerCase().split(";");
  const out: Record<string, string> = {};
  for (const name of signed) {
    const condition = SIGNED_CONDITIONS[name];
    if (condition) out[condition[0]] = condition[1];
  }
  return out;
}
