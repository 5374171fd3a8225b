/**
 * The part of CEL (SDK spec §1.3.1) that trigger `if`s, onFailure triggers and concurrency keys
 * use: literals, dotted paths into the variables (`event.data.assetId`), `+`, `==`, `!=`, `&&`,
 * `||` and parentheses. Anything else is refused when the function is synced, not guessed at.
 */
export type Vars = Record<string, unknown>;
export type Compiled = (vars: Vars) => unknown;

type Token = { kind: "str" | "num" | "ident" | "op"; value: string };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(['"])((?:\\.|(?!\1).)*)\1|(\d+(?:\.\d+)?)|([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)|(==|!=|&&|\|\||[+()]))/y;
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) throw new Error(`Unsupported expression near "${src.slice(pos, pos + 20)}" in: ${src}`);
    pos = re.lastIndex;
    if (m[1]) tokens.push({ kind: "str", value: m[2].replace(/\\(.)/g, "$1") });
    else if (m[3]) tokens.push({ kind: "num", value: m[3] });
    else if (m[4]) tokens.push({ kind: "ident", value: m[4] });
    else tokens.push({ kind: "op", value: m[5] });
  }
  return tokens;
}

function lookup(vars: Vars, path: string): unknown {
  let cur: unknown = vars;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function compileExpression(src: string): Compiled {
  const tokens = tokenize(src);
  let i = 0;
  const peek = (v: string) => tokens[i]?.kind === "op" && tokens[i].value === v;

  const primary = (): Compiled => {
    const t = tokens[i++];
    if (!t) throw new Error(`Unexpected end of expression: ${src}`);
    if (t.kind === "str") return () => t.value;
    if (t.kind === "num") return () => Number(t.value);
    if (t.kind === "ident") {
      if (t.value === "true" || t.value === "false") return () => t.value === "true";
      if (t.value === "null") return () => null;
      return (vars) => lookup(vars, t.value);
    }
    if (t.value === "(") {
      const inner = or();
      if (!peek(")")) throw new Error(`Missing ")" in: ${src}`);
      i++;
      return inner;
    }
    throw new Error(`Unexpected "${t.value}" in: ${src}`);
  };
  const add = (): Compiled => {
    let left = primary();
    while (peek("+")) {
      i++;
      const l = left;
      const r = primary();
      left = (v) => {
        const a = l(v);
        const b = r(v);
        return typeof a === "number" && typeof b === "number" ? a + b : `${a}${b}`;
      };
    }
    return left;
  };
  const eq = (): Compiled => {
    const left = add();
    if (peek("==") || peek("!=")) {
      const negate = tokens[i++].value === "!=";
      const right = add();
      return (v) => (left(v) === right(v)) !== negate;
    }
    return left;
  };
  const and = (): Compiled => {
    let left = eq();
    while (peek("&&")) {
      i++;
      const l = left;
      const r = eq();
      left = (v) => Boolean(l(v)) && Boolean(r(v));
    }
    return left;
  };
  const or = (): Compiled => {
    let left = and();
    while (peek("||")) {
      i++;
      const l = left;
      const r = and();
      left = (v) => Boolean(l(v)) || Boolean(r(v));
    }
    return left;
  };

  const compiled = or();
  if (i !== tokens.length) throw new Error(`Unexpected "${tokens[i].value}" in: ${src}`);
  return compiled;
}
