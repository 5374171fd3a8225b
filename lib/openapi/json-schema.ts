import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

/** Named schemas collected while converting: they become `components.schemas`. */
export type Components = Record<string, JsonSchema>;

const REF_PREFIX = "#/components/schemas/";

/** Noise zod writes that a reader gains nothing from: the safe-integer bounds and the long ISO pattern beside `format: date-time`. */
function tidy(ctx: { jsonSchema: JsonSchema }) {
  const s = ctx.jsonSchema;
  if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
  if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
  if (s.format === "date-time") delete s.pattern;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== "object") return value;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/") ? REF_PREFIX + v.slice("#/$defs/".length) : rewriteRefs(v);
  }
  return out;
}

/**
 * A zod schema as OpenAPI 3.1 JSON Schema (draft 2020-12), by zod's own `z.toJSONSchema`. Schemas
 * with a `meta({ id })` become `#/components/schemas/<id>` references and are added to
 * `components`; two different schemas claiming one id is an error, not a silent overwrite.
 * `io: "input"` describes what a request may send (before transforms and defaults), `"output"`
 * what a response carries.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output", components: Components): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, target: "draft-2020-12", override: tidy }) as JsonSchema;
  const { $schema: _dialect, $defs, ...root } = converted;
  for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    const body = rewriteRefs(def) as JsonSchema;
    const known = components[id];
    if (known && JSON.stringify(known) !== JSON.stringify(body)) throw new Error(`Two different schemas are named ${id}`);
    components[id] = body;
  }
  return rewriteRefs(root) as JsonSchema;
}
