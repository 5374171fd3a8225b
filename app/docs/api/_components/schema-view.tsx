import type { ReactNode } from "react";
import { InlineMarkdown } from "./markdown";

/** JSON Schema as the OpenAPI document holds it (draft 2020-12, as zod writes it). */
export type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  description?: string;
};

export const schemaAnchor = (name: string) => `schema-${name}`;
const refName = (ref: string) => ref.split("/").at(-1) ?? ref;

function constraints(s: Schema): string[] {
  const c: string[] = [];
  if (s.format) c.push(s.format);
  if (s.minimum !== undefined && s.maximum !== undefined) c.push(`${s.minimum}..${s.maximum}`);
  else if (s.minimum !== undefined) c.push(`≥ ${s.minimum}`);
  else if (s.maximum !== undefined) c.push(`≤ ${s.maximum}`);
  if (s.exclusiveMinimum !== undefined) c.push(`> ${s.exclusiveMinimum}`);
  if (s.minLength !== undefined && s.maxLength !== undefined) c.push(`length ${s.minLength}..${s.maxLength}`);
  else if (s.minLength !== undefined) c.push(`length ≥ ${s.minLength}`);
  else if (s.maxLength !== undefined) c.push(`length ≤ ${s.maxLength}`);
  if (s.maxItems !== undefined) c.push(`at most ${s.maxItems} items`);
  if (s.pattern) c.push(`/${s.pattern}/`);
  if (s.default !== undefined) c.push(`default ${JSON.stringify(s.default)}`);
  return c;
}

/** A one-line type: `string`, `integer | null`, `array of Board`, `"active" | "archived"`, a link for a named schema. */
export function TypeLabel({ schema }: { schema: Schema }): ReactNode {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return (
      <a href={`#${schemaAnchor(name)}`} className="font-mono text-blue-700 hover:underline">
        {name}
      </a>
    );
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    return variants.map((v, i) => (
      <span key={i}>
        {i > 0 && " | "}
        <TypeLabel schema={v} />
      </span>
    ));
  }
  if (schema.const !== undefined) return <span className="font-mono">{JSON.stringify(schema.const)}</span>;
  if (schema.enum) return <span className="font-mono">{schema.enum.map((v) => JSON.stringify(v)).join(" | ")}</span>;
  if (schema.type === "array" && schema.items) {
    return (
      <span>
        array of <TypeLabel schema={schema.items} />
      </span>
    );
  }
  if (schema.type === "object" && !schema.properties && typeof schema.additionalProperties === "object") {
    return (
      <span>
        map of <TypeLabel schema={schema.additionalProperties} />
      </span>
    );
  }
  if (schema.type === "object" && schema.properties) return <span className="font-mono">object</span>;
  if (schema.type === undefined) return <span className="font-mono">any</span>;
  return <span className="font-mono">{Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type}</span>;
}

/** The object whose fields deserve a nested table (directly, in an array, or nullable). */
function nestedObject(s: Schema): Schema | null {
  if (s.type === "object" && s.properties) return s;
  if (s.type === "array" && s.items) return nestedObject(s.items);
  const v = (s.anyOf ?? s.oneOf)?.filter((x) => x.type !== "null");
  return v?.length === 1 ? nestedObject(v[0]) : null;
}

/** A field table of an object schema; nested inline objects get their own table, named schemas a link. */
export function SchemaView({ schema }: { schema: Schema }) {
  const variants = schema.oneOf ?? schema.anyOf;
  if (!schema.properties && variants?.every((v) => v.properties)) {
    // A union of objects (the webhook payload): one table per variant, named by its constant field.
    return (
      <div className="space-y-3">
        {variants.map((v, i) => {
          const tag = Object.entries(v.properties ?? {}).find(([, f]) => f.const !== undefined);
          return (
            <div key={i}>
              <div className="text-xs font-semibold text-neutral-500">{tag ? `${tag[0]}: ${JSON.stringify(tag[1].const)}` : `variant ${i + 1}`}</div>
              <SchemaView schema={v} />
            </div>
          );
        })}
      </div>
    );
  }
  if (!schema.properties) {
    return (
      <p className="text-sm">
        <TypeLabel schema={schema} />
        {constraints(schema).length > 0 && <span className="ml-2 text-neutral-500">{constraints(schema).join(", ")}</span>}
      </p>
    );
  }
  const required = new Set(schema.required ?? []);
  return (
    <table className="w-full border-collapse text-left text-sm">
      <tbody>
        {Object.entries(schema.properties).map(([name, field]) => {
          const nested = nestedObject(field);
          return (
            <tr key={name} className="border-t border-neutral-200 align-top">
              <td className="w-1/4 py-1.5 pr-3 font-mono text-neutral-900">
                {name}
                {!required.has(name) && <span className="ml-1 font-sans text-xs text-neutral-500">optional</span>}
              </td>
              <td className="py-1.5">
                <div>
                  <TypeLabel schema={field} />
                  {constraints(field).length > 0 && <span className="ml-2 text-xs text-neutral-500">{constraints(field).join(", ")}</span>}
                </div>
                {field.description && (
                  <div className="text-neutral-600">
                    <InlineMarkdown text={field.description} />
                  </div>
                )}
                {nested && (
                  <div className="mt-1 border-l-2 border-neutral-200 pl-3">
                    <SchemaView schema={nested} />
                  </div>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
