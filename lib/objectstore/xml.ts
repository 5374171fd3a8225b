import { XMLParser, XMLValidator, type EntityDecoderOptions } from "fast-xml-parser";

/**
 * XML for the storage protocols: building answers, and reading the small request documents S3
 * clients send (CompleteMultipartUpload, Delete).
 *
 * Reading goes through fast-xml-parser: its validator checks well-formedness (its parser alone
 * accepts mismatched end tags), then the parser builds the tree. Two things are added on top,
 * because the parser's own entity decoder leaves a reference it cannot resolve in the text as it
 * was written instead of refusing the document:
 * - references are decoded strictly (XML 1.0's "Legal Character" and "Entity Declared"
 *   constraints): only the five predefined entities and character references to characters XML
 *   allows; `&#x110000;`, `&#0;`, a surrogate or an undeclared `&name;` make the document malformed;
 * - any DOCTYPE is refused, so no entity is ever declared, expanded or fetched (an XML bomb or an
 *   external entity never gets past the prolog).
 * Work per request is bounded: a document whose markup count is over the caller's element budget
 * is refused before it is validated, nesting deeper than MAX_DEPTH is refused, and the event loop
 * is given back between validation and parsing (each is linear; on a 10,000-part completion, the
 * largest S3 allows, each takes tens of milliseconds on a 2-core machine).
 *
 * Building answers stays a small writer (`xmlDocument`): fast-xml-parser's builder is deprecated
 * in the installed version in favour of a separate package, and the writer is only escaping.
 */

export type XmlNode = { [tag: string]: XmlValue };
type XmlValue = string | number | boolean | null | undefined | XmlNode | XmlValue[];

/**
 * Text as XML character data. A carriage return is written as a reference: a parser turns a raw
 * CR (or CRLF) into LF, so a key holding one would read back as another key.
 */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;", "\r": "&#xD;" })[c] as string);
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

// ---- reading

/** A request document that is not well-formed, not of the expected shape, or over its limits. */
export class MalformedXmlError extends Error {
  constructor(reason: string) {
    super(`malformed XML: ${reason}`);
    this.name = "MalformedXmlError";
  }
}

/** An element: its name, its children in document order, and its text (character data and CDATA, joined). */
export type XmlElement = { name: string; children: XmlElement[]; text: string };

/** The request documents are three levels deep (Delete/Object/Key); anything much deeper is not one. */
const MAX_DEPTH = 8;

/** XML 1.0's Char production: what a document may hold, raw or as a character reference. */
const isXmlChar = (cp: number) =>
  cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeReference(token: string): string {
  const hex = /^#x([0-9a-fA-F]+)$/.exec(token);
  const dec = hex ? null : /^#([0-9]+)$/.exec(token);
  if (hex || dec) {
    const cp = hex ? parseInt(hex[1], 16) : parseInt(dec![1], 10);
    if (!isXmlChar(cp)) throw new MalformedXmlError(`&${token}; is not a character XML allows`);
    return String.fromCodePoint(cp);
  }
  if (Object.hasOwn(PREDEFINED, token)) return PREDEFINED[token];
  throw new MalformedXmlError(`&${token}; is not declared`);
}

/** The parser's entity hook (a documented option): strict decoding, and no DOCTYPE. */
const strictEntities: EntityDecoderOptions = {
  decode: (text) => (text.includes("&") ? text.replace(/&([^&;]*)(;?)/g, (_, token: string, semi: string) => {
    if (!semi) throw new MalformedXmlError("an & that starts no reference");
    return decodeReference(token);
  }) : text),
  // Called for every DOCTYPE, with the entities it declares (none or some): any DOCTYPE is refused.
  addInputEntities: () => {
    throw new MalformedXmlError("a DOCTYPE is not accepted");
  },
  setExternalEntities: () => undefined,
  reset: () => undefined,
  // Documents are read as XML 1.0 whatever their declaration says (S3 speaks 1.0).
  setXmlVersion: () => undefined,
};

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  entityDecoder: strictEntities,
  maxNestedTags: MAX_DEPTH,
});

type Ordered = Record<string, unknown>[];

function toElements(nodes: Ordered): { children: XmlElement[]; text: string } {
  const children: XmlElement[] = [];
  let text = "";
  for (const node of nodes) {
    for (const [name, value] of Object.entries(node)) {
      if (name === ":@") continue;
      if (name === "#text") text += String(value);
      else children.push({ name, ...toElements(value as Ordered) });
    }
  }
  return { children, text };
}

function markupCount(xml: string): number {
  let n = 0;
  for (let i = xml.indexOf("<"); i !== -1; i = xml.indexOf("<", i + 1)) n++;
  return n;
}

/**
 * The root element of a request document, which must be `root`. `maxElements`: the most elements
 * a valid document of this kind holds; one with more markup than that (start and end tags count
 * apart) is refused unread. Throws MalformedXmlError.
 */
export async function parseXml(xml: string, opts: { root: string; maxElements: number }): Promise<XmlElement> {
  const body = xml.replace(/^\uFEFF/, "");
  if (markupCount(body) > 2 * opts.maxElements + 8) throw new MalformedXmlError(`more than ${opts.maxElements} elements`);
  if (NOT_XML_CHAR.test(body)) throw new MalformedXmlError("a character XML does not allow");
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new MalformedXmlError(valid.err.msg);
  await new Promise((resolve) => setImmediate(resolve));
  let nodes: Ordered;
  try {
    nodes = parser.parse(body) as Ordered;
  } catch (err) {
    if (err instanceof MalformedXmlError) throw err;
    // The parser's own refusals (nesting, names): the document is the problem, not the server.
    throw new MalformedXmlError(err instanceof Error ? err.message : String(err));
  }
  const top = toElements(nodes);
  if (top.children.length !== 1 || top.children[0].name !== opts.root) throw new MalformedXmlError(`the root element is not ${opts.root}`);
  return top.children[0];
}

/** The child elements of `el` named `name`, in document order. */
export function childElements(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}

/**
 * The text of `el`'s only child named `name`, or null when it has none. A child that appears more
 * than once, or holds elements where text belongs, makes the document malformed.
 */
export function childText(el: XmlElement, name: string): string | null {
  const found = childElements(el, name);
  if (found.length === 0) return null;
  if (found.length > 1) throw new MalformedXmlError(`more than one ${name}`);
  if (found[0].children.length) throw new MalformedXmlError(`${name} holds elements`);
  return found[0].text;
}
