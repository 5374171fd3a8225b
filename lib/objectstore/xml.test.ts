import { describe, expect, it } from "vitest";
import { childElements, childText, MalformedXmlError, parseXml, xmlDocument } from "./xml";

const read = (xml: string, maxElements = 100) => parseXml(xml, { root: "Delete", maxElements });
const keys = async (xml: string) => childElements(await read(xml), "Object").map((o) => childText(o, "Key"));
const refused = async (xml: string, maxElements?: number): Promise<string> => {
  try {
    const doc = await read(xml, maxElements);
    // Shape errors surface when the document is read, as the store's operations read it.
    for (const o of childElements(doc, "Object")) childText(o, "Key");
    childText(doc, "Quiet");
    return "not refused";
  } catch (err) {
    return err instanceof MalformedXmlError ? err.message : `not refused: ${String(err)}`;
  }
};

describe("reading a request document", () => {
  it("reads elements in order, decodes the predefined entities, character references and CDATA", async () => {
    const xml =
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- a comment --><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      "<Quiet>true</Quiet><Object><Key>a&amp;b&lt;&gt;&quot;&apos;</Key></Object>" +
      "<Object><Key>&#x1F600;&#233;&#xD;</Key></Object><Object><Key><![CDATA[&amp;<x>]]></Key></Object><Object><Key/></Object></Delete>";
    const doc = await read(xml);
    expect(childText(doc, "Quiet")).toBe("true");
    expect(await keys(xml)).toEqual(["a&b<>\"'", "\u{1F600}é\r", "&amp;<x>", ""]);
    expect(childText(doc, "Missing")).toBeNull();
  });

  it("keeps text as written (no trimming, no number parsing)", async () => {
    expect(await keys("<Delete><Object><Key> 007 </Key></Object></Delete>")).toEqual([" 007 "]);
  });

  it.each([
    ["a code point past U+10FFFF", "<Delete><Object><Key>&#x110000;</Key></Object></Delete>", /not a character/],
    ["a huge decimal reference", "<Delete><Object><Key>&#99999999999999999999;</Key></Object></Delete>", /not a character/],
    ["NUL as a reference", "<Delete><Object><Key>&#0;</Key></Object></Delete>", /not a character/],
    ["a surrogate as a reference", "<Delete><Object><Key>&#xD800;</Key></Object></Delete>", /not a character/],
    ["a C0 control as a reference", "<Delete><Object><Key>&#x1;</Key></Object></Delete>", /not a character/],
    ["U+FFFE as a reference", "<Delete><Object><Key>&#xFFFE;</Key></Object></Delete>", /not a character/],
    ["an empty character reference", "<Delete><Object><Key>&#;</Key></Object></Delete>", /not declared/],
    ["an undeclared entity", "<Delete><Object><Key>&nbsp;</Key></Object></Delete>", /not declared/],
    ["a prototype name as an entity", "<Delete><Object><Key>&constructor;</Key></Object></Delete>", /not declared/],
    ["a raw control character", "<Delete><Object><Key>a\u0001b</Key></Object></Delete>", /character XML does not allow/],
    ["a raw NUL", "<Delete><Object><Key>a\u0000b</Key></Object></Delete>", /character XML does not allow/],
    ["a lone surrogate", "<Delete><Object><Key>a\uD800b</Key></Object></Delete>", /character XML does not allow/],
  ])("refuses %s", async (_, xml, reason) => {
    expect(await refused(xml)).toMatch(reason);
  });

  it.each([
    ["an entity bomb", `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><Delete><Object><Key>&c;</Key></Object></Delete>`],
    ["an external entity", `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Delete><Object><Key>&e;</Key></Object></Delete>`],
    ["a parameter entity", `<!DOCTYPE x [<!ENTITY % p SYSTEM "http://127.0.0.1/x.dtd"> %p;]><Delete><Object><Key>k</Key></Object></Delete>`],
    ["a DOCTYPE declaring nothing", `<!DOCTYPE Delete><Delete><Object><Key>k</Key></Object></Delete>`],
    ["a DOCTYPE inside the root", `<Delete><!DOCTYPE x><Object><Key>k</Key></Object></Delete>`],
  ])("refuses %s: no DOCTYPE is read", async (_, xml) => {
    expect(await refused(xml)).not.toMatch(/^not refused/);
  });

  it.each([
    ["an empty body", ""],
    ["text", "not xml at all"],
    ["an unclosed root", "<Delete>"],
    ["mismatched end tags", "<Delete><Object><Key>k</Object></Key></Delete>"],
    ["an end tag never opened", "<Delete></Object></Delete>"],
    ["two roots", "<Delete></Delete><Delete></Delete>"],
    ["text after the root", "<Delete></Delete>trailing"],
    ["another root", "<CompleteMultipartUpload></CompleteMultipartUpload>"],
    ["a prefixed root", '<s3:Delete xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"></s3:Delete>'],
    ["a bare ampersand", "<Delete><Object><Key>a & b</Key></Object></Delete>"],
    ["an unterminated reference", "<Delete><Object><Key>&amp</Key></Object></Delete>"],
    ["a repeated Key", "<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>"],
    ["elements inside a Key", "<Delete><Object><Key>a<b/>c</Key></Object></Delete>"],
    ["an unclosed CDATA", "<Delete><Object><Key><![CDATA[x</Key></Object></Delete>"],
    ["an unclosed comment", "<Delete><!-- x </Delete>"],
  ])("refuses %s", async (_, xml) => {
    expect(await refused(xml)).not.toMatch(/^not refused/);
  });

  it("refuses nesting deeper than the documents have, and more elements than the budget, before reading them", async () => {
    expect(await refused(`<Delete>${"<Object>".repeat(5000)}${"</Object>".repeat(5000)}</Delete>`, 100_000)).toMatch(/nested|depth/i);
    expect(await refused(`<Delete>${"<Object>".repeat(5000)}</Delete>`, 100_000)).not.toMatch(/^not refused/);
    const many = `<Delete>${"<Object><Key>k</Key></Object>".repeat(60)}</Delete>`;
    expect(await refused(many, 100)).toMatch(/more than 100 elements/);
    expect(await keys(`<Delete>${"<Object><Key>k</Key></Object>".repeat(33)}</Delete>`)).toHaveLength(33);
  });
});

describe("writing an answer", () => {
  it("escapes text and renders lists, empty elements and attributes", () => {
    expect(xmlDocument("R", { A: "x&<>\"'", B: [{ C: 1 }, { C: 2 }], D: null, E: undefined }, 'xmlns="urn:x"')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<R xmlns="urn:x"><A>x&amp;&lt;&gt;&quot;&apos;</A><B><C>1</C></B><B><C>2</C></B><D/></R>',
    );
  });

  it("reads back what it writes", async () => {
    const key = "dir/é & <x> \"q\" 'a' \r\n \r \t";
    const doc = await parseXml(xmlDocument("Delete", { Object: [{ Key: key }] }), { root: "Delete", maxElements: 10 });
    expect(childElements(doc, "Object").map((o) => childText(o, "Key"))).toEqual([key]);
  });
});
