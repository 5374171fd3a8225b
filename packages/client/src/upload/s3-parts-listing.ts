import { XMLParser } from "fast-xml-parser";

const parser = new XMLParser({ isArray: (name) => name === "Part", parseTagValue: false });

/**
 * Part numbers of an S3 ListParts answer whose stored size is what that part must hold
 * (`partSize`, the last one the rest of `size`): a part cut short is sent again. One page is
 * enough: Easel's parts are 8 MiB, so its 5 GiB limit is 640 parts, below ListParts' 1,000.
 */
export function storedWholeParts(xml: string, size: number, partSize: number): Set<number> {
  const doc = parser.parse(xml) as { ListPartsResult?: { Part?: { PartNumber?: string; Size?: string }[] } };
  const count = Math.ceil(size / partSize);
  const whole = new Set<number>();
  for (const part of doc.ListPartsResult?.Part ?? []) {
    const n = Number(part.PartNumber);
    if (!Number.isInteger(n) || n < 1 || n > count) continue;
    const expected = n < count ? partSize : size - partSize * (count - 1);
    if (Number(part.Size) === expected) whole.add(n);
  }
  return whole;
}
