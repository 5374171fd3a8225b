import { InlineMarkdown, Markdown } from "./markdown";
import { SchemaView, TypeLabel, type Schema } from "./schema-view";

export type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Media = { schema?: Schema };
type Response = { description: string; headers?: Record<string, unknown>; content?: Record<string, Media> };
export type OperationObject = {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
  security?: Record<string, string[]>[];
};

const METHOD_COLORS: Record<string, string> = {
  get: "bg-emerald-100 text-emerald-800",
  post: "bg-blue-100 text-blue-800",
  patch: "bg-amber-100 text-amber-800",
  delete: "bg-red-100 text-red-800",
};

export function MethodBadge({ method }: { method: string }) {
  return <span className={`inline-block w-16 rounded px-1.5 py-0.5 text-center font-mono text-xs font-semibold uppercase ${METHOD_COLORS[method] ?? "bg-neutral-100"}`}>{method}</span>;
}

export const operationAnchor = (op: OperationObject) => `op-${op.operationId}`;

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="mt-4">
      <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-neutral-500">{title}</h4>
      {children}
    </div>
  );
}

/** One operation: what it does, who may call it, what it takes, every answer with its codes. */
export function Operation(props: {
  method: string;
  path: string;
  op: OperationObject;
  pathParameters: Parameter[];
  resolveParameter: (ref: string) => Parameter;
  resolveSchema: (ref: string) => Schema | undefined;
}) {
  const { method, path, op } = props;
  const parameters = [...props.pathParameters, ...(op.parameters ?? []).map((p) => ("$ref" in p ? props.resolveParameter(p.$ref) : p))];
  const body = op.requestBody?.content["application/json"]?.schema;
  return (
    <section id={operationAnchor(op)} className="scroll-mt-4 rounded-lg border border-neutral-200 bg-white p-5">
      <div className="flex flex-wrap items-center gap-3">
        <MethodBadge method={method} />
        <code className="font-mono text-sm text-neutral-900">{path}</code>
      </div>
      <h3 className="mt-2 text-base font-semibold text-neutral-900">{op.summary}</h3>
      <Markdown text={op.description} className="mt-1" />

      {parameters.length > 0 && (
        <Section title="Parameters">
          <table className="w-full border-collapse text-left text-sm">
            <tbody>
              {parameters.map((p) => (
                <tr key={`${p.in}:${p.name}`} className="border-t border-neutral-200 align-top">
                  <td className="w-1/4 py-1.5 pr-3 font-mono text-neutral-900">
                    {p.name}
                    {!p.required && <span className="ml-1 font-sans text-xs text-neutral-500">optional</span>}
                  </td>
                  <td className="w-20 py-1.5 pr-3 text-xs text-neutral-500">{p.in}</td>
                  <td className="py-1.5">
                    {p.schema && <TypeLabel schema={p.schema} />}
                    {p.schema?.default !== undefined && <span className="ml-2 text-xs text-neutral-500">default {String(p.schema.default)}</span>}
                    {p.description && (
                      <div className="text-neutral-600">
                        <InlineMarkdown text={p.description} />
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}

      {body && (
        <Section title="Request body (application/json)">
          <SchemaView schema={body} />
        </Section>
      )}

      <Section title="Responses">
        <div className="space-y-3">
          {Object.entries(op.responses).map(([status, r]) => {
            const schema = r.content?.["application/json"]?.schema;
            const isError = Number(status) >= 400;
            const named = schema?.$ref ? props.resolveSchema(schema.$ref) : undefined;
            return (
              <div key={status} className="flex gap-3">
                <span className={`h-fit rounded px-1.5 py-0.5 font-mono text-xs font-semibold ${isError ? "bg-red-50 text-red-700" : "bg-emerald-50 text-emerald-700"}`}>{status}</span>
                <div className="min-w-0 flex-1">
                  {isError ? (
                    <>
                      <div className="text-sm text-neutral-600">
                        <a href="#schema-ErrorEnvelope" className="font-mono text-blue-700 hover:underline">
                          ErrorEnvelope
                        </a>{" "}
                        with <code className="font-mono">extensions.code</code>:
                      </div>
                      <Markdown text={r.description} />
                    </>
                  ) : (
                    <>
                      <Markdown text={r.description} />
                      {schema && (
                        <div className="mt-1">
                          <TypeLabel schema={schema} />
                          {named && (
                            <div className="mt-1 border-l-2 border-neutral-200 pl-3">
                              <SchemaView schema={named} />
                            </div>
                          )}
                        </div>
                      )}
                    </>
                  )}
                </div>
              </div>
            );
          })}
        </div>
      </Section>
    </section>
  );
}
