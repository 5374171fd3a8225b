import S3rver from "s3rver";

/** s3rver's CORS rules must expose ETag for browser multipart uploads, as a real bucket's would. */
export const S3RVER_CORS = `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedMethod>PUT</AllowedMethod><AllowedMethod>POST</AllowedMethod><AllowedMethod>DELETE</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule></CORSConfiguration>`;

/** s3rver's fixed key pair (it checks key ids and expiry, not signatures). */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** Starts s3rver in this process on a loopback port, with `buckets` created. */
export async function startS3rver(directory: string, buckets: string[]): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = new S3rver({ port: 0, address: "127.0.0.1", directory, silent: true, configureBuckets: buckets.map((name) => ({ name, configs: [S3RVER_CORS] })) });
  const { port } = await server.run();
  return { origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}
