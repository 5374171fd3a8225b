import crypto from "node:crypto";
import { canonicalHeaders, canonicalPath, canonicalQuery, parseCompactDate, rawQueryParams } from "../canonical";
import { GcsError, gcsErrors } from "./errors";

const ALGORITHM = "GOOG4-RSA-SHA256";
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

export type GcsVerifier = { clientEmail: string; publicKey: crypto.KeyObject };

/**
 * Verifies a GCS V4 signed URL (GOOG4-RSA-SHA256), as @google-cloud/storage produces them offline,
 * against the store's signing identity. `resourcePath` is the path the signer saw (/bucket/key),
 * i.e. the request path without the store's mount. Time is judged by `now` (Easel's clock).
 */
export function verifyGcsSignedUrl(req: Request, url: URL, resourcePath: string, signer: GcsVerifier, now: Date): void {
  const params = rawQueryParams(url.search);
  const get = (name: string) => params.find(([n]) => n === name)?.[1];
  const algorithm = get("X-Goog-Algorithm");
  if (!algorithm) throw gcsErrors.accessDenied("Anonymous caller does not have access; use a signed URL.");
  if (algorithm !== ALGORITHM) throw gcsErrors.invalidArgument(`X-Goog-Algorithm must be ${ALGORITHM}.`);
  const credential = (get("X-Goog-Credential") ?? "").split("/");
  if (credential.length !== 5 || credential[3] !== "storage" || credential[4] !== "goog4_request") {
    throw gcsErrors.invalidArgument("X-Goog-Credential must be <email>/<yyyymmdd>/<location>/storage/goog4_request.");
  }
  if (credential[0] !== signer.clientEmail) throw gcsErrors.accessDenied(`Unknown signer ${credential[0]}.`);
  const goog = get("X-Goog-Date") ?? "";
  const signedAt = parseCompactDate(goog);
  const expires = Number(get("X-Goog-Expires"));
  const signature = get("X-Goog-Signature") ?? "";
  const signedHeaders = (get("X-Goog-SignedHeaders") ?? "").split(";").filter(Boolean);
  if (!signedAt || goog.slice(0, 8) !== credential[1]) throw gcsErrors.invalidArgument("X-Goog-Date is missing, malformed, or disagrees with the credential.");
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) throw gcsErrors.invalidArgument("X-Goog-Expires must be between 1 and 604800 seconds.");
  if (!signedHeaders.includes("host")) throw gcsErrors.invalidArgument("The host header must be signed.");
  // The contract answers expired storage URLs with 403 (GCS itself says 400 ExpiredToken).
  if (now.getTime() > signedAt.getTime() + expires * 1000) {
    throw new GcsError("ExpiredToken", "The provided token has expired.", 403, { Details: `Request signature expired at: ${new Date(signedAt.getTime() + expires * 1000).toISOString()}` });
  }
  if (signedAt.getTime() - now.getTime() > 15 * 60 * 1000) throw gcsErrors.accessDenied("The signed URL is not valid yet.");

  const scope = credential.slice(1).join("/");
  const payload = signedHeaders.includes("x-goog-content-sha256") ? (req.headers.get("x-goog-content-sha256") ?? "") : "UNSIGNED-PAYLOAD";
  const host = req.headers.get("host") ?? url.host;
  // @google-cloud/storage signs the host name without its port; other signers keep the port.
  const hosts = host.includes(":") ? [host, host.replace(/:\d+$/, "")] : [host];
  let lastStringToSign = "";
  for (const candidate of hosts) {
    const canonicalRequest = [
      req.method,
      canonicalPath(resourcePath),
      canonicalQuery(params, "X-Goog-Signature"),
      canonicalHeaders(signedHeaders, (name) => (name === "host" ? candidate : req.headers.get(name))),
      signedHeaders.join(";"),
      payload,
    ].join("\n");
    const hash = crypto.createHash("sha256").update(canonicalRequest).digest("hex");
    lastStringToSign = [ALGORITHM, goog, scope, hash].join("\n");
    if (/^[0-9a-f]+$/.test(signature) && crypto.verify("sha256", Buffer.from(lastStringToSign), signer.publicKey, Buffer.from(signature, "hex"))) return;
  }
  throw new GcsError("SignatureDoesNotMatch", "Access denied.", 403, {
    Details: "The request signature we calculated does not match the signature you provided. Check your Google secret key and signing method.",
    StringToSign: lastStringToSign,
  });
}
