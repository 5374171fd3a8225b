/**
 * Header values arrive as bytes, which Node hands over one character per byte (Latin-1). Clients
 * send text beyond ASCII (`x-amz-meta-title: Café`) as its UTF-8 bytes, and sign that text: read
 * back as UTF-8 it is what was signed and what is meant. Bytes that are not UTF-8 stay as they came.
 */
const utf8 = new TextDecoder("utf-8", { fatal: true });

export function headerText(value: string): string {
   
  if (!/[^\x00-\x7f]/.test(value)) return value;
  const bytes = Buffer.from(value, "latin1");
  try {
    return utf8.decode(bytes);
  } catch {
    return value;
  }
}

/**
 * A stored text for a response header: ASCII as it is, anything else as an RFC 2047 encoded word
 * (`=?UTF-8?B?…?=`), which is how S3 returns user metadata beyond ASCII: mail-safe, and readable
 * by every HTTP stack.
 */
export function mailSafe(value: string): string {
   
  if (!/[^\x00-\x7f]/.test(value)) return value;
  return `=?UTF-8?B?${Buffer.from(value, "utf8").toString("base64")}?=`;
}
