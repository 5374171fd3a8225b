import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { MULTIPART_THRESHOLD, PART_SIZE, partCount } from "./limits";

const MiB = 1024 * 1024;

describe("upload limits", () => {
  it("are the contract's numbers: multipart from 5 MiB (5,242,880 bytes) on, 8 MiB parts (§4)", () => {
    expect(MULTIPART_THRESHOLD).toBe(5_242_880);
    expect(PART_SIZE).toBe(8_388_608);
  });

  it("count the parts of a multipart upload, the last one smaller", () => {
    expect(partCount(MULTIPART_THRESHOLD)).toBe(1);
    expect(partCount(8 * MiB)).toBe(1);
    expect(partCount(8 * MiB + 1)).toBe(2);
    expect(partCount(100 * MiB)).toBe(13);
  });

  it("import nothing, so the browser uploader can take them without server code", () => {
    const text = fs.readFileSync(path.join(import.meta.dirname, "limits.ts"), "utf8");
    const source = ts.createSourceFile("limits.ts", text, ts.ScriptTarget.Latest, true);
    const imports: string[] = [];
    const visit = (node: ts.Node) => {
      const fromModule = (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isImportEqualsDeclaration(node)) && node;
      const dynamic = ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"));
      if (fromModule || dynamic) imports.push(node.getText(source));
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(source.statements.length).toBeGreaterThan(0);
    expect(imports).toEqual([]);
  });
});
