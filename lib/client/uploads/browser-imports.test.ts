import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The uploader runs in the browser and takes its size numbers from lib/storage/limits.ts, a file
 * the server uses too. Following every import that survives compilation (type-only imports are
 * erased) from the uploader's files must reach only browser code: lib/client itself and limits.ts,
 * and no Node built-in or server package. Otherwise the client bundle would carry server code.
 */
const root = path.resolve(import.meta.dirname, "../../..");
const ENTRIES = fs
  .readdirSync(import.meta.dirname)
  .filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".test.ts"))
  .map((f) => path.join("lib/client/uploads", f));
const SHARED_WITH_SERVER = ["lib/storage/limits.ts"];
const SERVER_PACKAGES = /^(node:|drizzle-orm|postgres$|@electric-sql\/|@aws-sdk\/|@google-cloud\/|inngest|next-auth|pino|sharp$)/;

/** Module specifiers a file imports at run time: type-only imports and exports are left out. */
function runtimeImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause?.isTypeOnly || (clause && !clause.name && named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The repository file a local specifier names (relative or "@/"), or null for a package. */
function resolveLocal(from: string, spec: string): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.join(path.dirname(from), spec) : null;
  if (base === null) return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile()) return candidate.split(path.sep).join("/");
  }
  throw new Error(`${from}: cannot resolve ${spec}`);
}

const readSource = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

function reachable(entries: string[], read = readSource): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of runtimeImports(file, read(file))) {
      const local = resolveLocal(file, spec);
      if (local) queue.push(local);
      else packages.add(spec);
    }
  }
  return { files, packages };
}

describe("the browser uploader's imports", () => {
  it("reach only lib/client and lib/storage/limits.ts, and no server package", () => {
    expect(ENTRIES).toContain("lib/client/uploads/create-uploader.ts");
    const { files, packages } = reachable(ENTRIES);
    // The walk did reach the shared limits (the uploader's multipart threshold and part size).
    expect(files).toContain("lib/storage/limits.ts");
    expect([...files].filter((f) => !f.startsWith("lib/client/") && !SHARED_WITH_SERVER.includes(f))).toEqual([]);
    expect([...packages].filter((p) => SERVER_PACKAGES.test(p))).toEqual([]);
  });

  it("a server module behind a value import is caught; a type-only import is not followed", () => {
    const probe = "lib/client/uploads/probe.ts";
    const probeText = 'import type { Deps } from "../../deps";\nimport { prepareUpload } from "../../uploads/prepare-upload";\n';
    const { files, packages } = reachable([probe], (f) => (f === probe ? probeText : readSource(f)));
    expect(files).toContain("lib/uploads/prepare-upload.ts");
    expect(files).not.toContain("lib/deps.ts");
    expect([...packages].some((p) => SERVER_PACKAGES.test(p))).toBe(true);
  });
});
