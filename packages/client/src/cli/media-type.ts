/**
 * A declared media type from the file name, for the common kinds; anything else is
 * application/octet-stream. The server sniffs the real type from the bytes after the upload
 * (docs/uploads.md), so this only has to be a good first guess.
 */
const BY_EXTENSION: Record<string, string> = {
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", avif: "image/avif",
  heic: "image/heic", tif: "image/tiff", tiff: "image/tiff", svg: "image/svg+xml", pdf: "application/pdf",
  mp4: "video/mp4", m4v: "video/mp4", mov: "video/quicktime", webm: "video/webm", avi: "video/x-msvideo", mkv: "video/x-matroska",
  mp3: "audio/mpeg", wav: "audio/wav", ogg: "audio/ogg", flac: "audio/flac", m4a: "audio/mp4",
  txt: "text/plain", md: "text/markdown", csv: "text/csv", json: "application/json", zip: "application/zip",
};

export function mediaTypeOf(fileName: string): string {
  const ext = /\.([^./]+)$/.exec(fileName)?.[1]?.toLowerCase();
  return (ext && BY_EXTENSION[ext]) || "application/octet-stream";
}
