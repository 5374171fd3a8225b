import { Fragment, type ReactNode } from "react";

/**
 * The small Markdown subset the OpenAPI document's descriptions use: paragraphs, "- " lists,
 * `code` and **bold**. Rendered as elements (never as HTML strings), so text from the document
 * cannot inject markup.
 */
function inline(text: string): ReactNode[] {
  return text.split(/(`[^`]+`|\*\*[^*]+\*\*)/g).map((part, i) => {
    if (part.startsWith("`") && part.endsWith("`") && part.length > 1) {
      return (
        <code key={i} className="rounded bg-neutral-100 px-1 py-0.5 font-mono text-[0.85em] text-neutral-800">
          {part.slice(1, -1)}
        </code>
      );
    }
    if (part.startsWith("**") && part.endsWith("**")) return <strong key={i}>{part.slice(2, -2)}</strong>;
    return <Fragment key={i}>{part}</Fragment>;
  });
}

/** A block's lines, grouped: runs of "- " lines become a list, other runs a paragraph. */
function groups(block: string): { list: boolean; lines: string[] }[] {
  const out: { list: boolean; lines: string[] }[] = [];
  for (const line of block.split("\n")) {
    const list = line.startsWith("- ");
    const last = out.at(-1);
    if (last && last.list === list) last.lines.push(list ? line.slice(2) : line);
    else out.push({ list, lines: [list ? line.slice(2) : line] });
  }
  return out;
}

export function Markdown({ text, className = "" }: { text: string | undefined; className?: string }) {
  if (!text) return null;
  const parts = text.split(/\n{2,}/).flatMap(groups);
  return (
    <div className={`space-y-2 text-sm leading-6 text-neutral-700 ${className}`}>
      {parts.map((g, i) =>
        g.list ? (
          <ul key={i} className="list-disc space-y-1 pl-5">
            {g.lines.map((l, j) => (
              <li key={j}>{inline(l)}</li>
            ))}
          </ul>
        ) : (
          <p key={i}>{inline(g.lines.join(" "))}</p>
        ),
      )}
    </div>
  );
}

export function InlineMarkdown({ text }: { text: string | undefined }) {
  return text ? <>{inline(text)}</> : null;
}
