/**
 * Just enough XML for the storage protocols: building answers, and reading the two small request
 * bodies S3 clients send (CompleteMultipartUpload, Delete). Their schemas are flat, so reading
 * them needs element lookup and entity decoding, not a general parser.
 */

export type XmlNode = { [tag: string]: XmlValue };
type XmlValue = string | number | boolean | null | undefined | XmlNode | XmlValue[];

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] as string);
}

function render(tag: string, value: XmlValue): string {
  if (value === undefined) return "";
  if (Array.isArray(value)) return value.map((v) => render(tag, v)).join("");
  if (value === null) return `<${tag}/>`;
  if (typeof value === "object") {
    return `<${tag}>${Object.entries(value).map(([t, v]) => render(t, v)).join("")}</${tag}>`;
  }
  return `<${tag}>${escapeXml(String(value))}</${tag}>`;
}

/** A whole document: `xmlDocument("Error", { Code: "NoSuchKey" })`. */
export function xmlDocument(root: string, body: XmlNode, attributes = ""): string {
  const inner = Object.entries(body).map(([t, v]) => render(t, v)).join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${attributes ? ` ${attributes}` : ""}>${inner}</${root}>`;
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e[0] === "#") return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[e] as string;
  });
}

/** The inner text of each `<tag>…</tag>` in `xml` (attributes and namespaces on the tag allowed). */
export function elements(xml: string, tag: string): string[] {
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>|<${tag}(?:\\s[^>]*)?/>`, "g");
  return [...xml.matchAll(re)].map((m) => m[1] ?? "");
}

/** The decoded text of the first `<tag>` in `xml`, or null. */
export function text(xml: string, tag: string): string | null {
  const [first] = elements(xml, tag);
  return first === undefined ? null : decodeEntities(first.replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, "$1"));
}

/** Whether `xml` is a document whose root element is `root` (after an optional declaration). */
export function hasRoot(xml: string, root: string): boolean {
  const body = xml.replace(/^\uFEFF?\s*(<\?xml[^>]*\?>)?\s*/, "");
  return new RegExp(`^<${root}(\\s[^>]*)?>[\\s\\S]*</${root}>\\s*$`).test(body);
}
