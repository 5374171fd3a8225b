import type { Metadata } from "next";
import { openApiDocument } from "@/lib/openapi/document";
import { Markdown } from "./_components/markdown";
import { MethodBadge, Operation, operationAnchor, type OperationObject, type Parameter } from "./_components/operation";
import { SchemaView, schemaAnchor, type Schema } from "./_components/schema-view";

export const metadata: Metadata = { title: "API reference" };

type Entry = { method: string; path: string; op: OperationObject; pathParameters: Parameter[] };

/**
 * The API reference for people: the OpenAPI document served at /v1/openapi.json, rendered on the
 * server with no scripts. Public, like the document itself.
 */
export default function ApiReferencePage() {
  const doc = openApiDocument();
  const entries: Entry[] = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== "parameters")
      .map(([method, op]) => ({ method, path, op: op as OperationObject, pathParameters: (item.parameters ?? []) as Parameter[] })),
  );
  const schemas = doc.components.schemas as Record<string, Schema>;
  const resolveSchema = (ref: string) => schemas[ref.split("/").at(-1) ?? ""];
  const resolveParameter = (ref: string) => (doc.components.parameters as Record<string, Parameter>)[ref.split("/").at(-1) ?? ""];
  const webhooks = Object.entries(doc.webhooks as Record<string, { post: OperationObject }>);

  return (
    <div className="mx-auto flex max-w-6xl gap-8 px-6 py-10">
      <nav className="sticky top-6 hidden h-[calc(100vh-3rem)] w-60 shrink-0 overflow-y-auto text-sm lg:block">
        {doc.tags.map((tag) => (
          <div key={tag.name} className="mb-4">
            <div className="mb-1 font-semibold text-neutral-900">{tag.name}</div>
            {entries
              .filter((e) => e.op.tags.includes(tag.name))
              .map((e) => (
                <a key={e.op.operationId} href={`#${operationAnchor(e.op)}`} className="block truncate py-0.5 text-neutral-600 hover:text-neutral-900">
                  {e.op.summary}
                </a>
              ))}
          </div>
        ))}
        <a href="#webhooks" className="mb-1 block font-semibold text-neutral-900">
          Webhook events
        </a>
        <a href="#schemas" className="block font-semibold text-neutral-900">
          Schemas
        </a>
      </nav>

      <main className="min-w-0 flex-1">
        <header className="mb-8">
          <h1 className="text-2xl font-semibold text-neutral-900">{doc.info.title}</h1>
          <p className="mt-1 text-sm text-neutral-500">
            OpenAPI {doc.openapi} ·{" "}
            <a href="/v1/openapi.json" className="text-blue-700 underline">
              /v1/openapi.json
            </a>{" "}
            for client generators
          </p>
          <Markdown text={doc.info.description} className="mt-4" />
        </header>

        {doc.tags.map((tag) => (
          <div key={tag.name} className="mb-10">
            <h2 className="text-lg font-semibold text-neutral-900">{tag.name}</h2>
            <p className="mb-3 text-sm text-neutral-500">{tag.description}</p>
            <div className="space-y-4">
              {entries
                .filter((e) => e.op.tags.includes(tag.name))
                .map((e) => (
                  <Operation key={e.op.operationId} {...e} resolveParameter={resolveParameter} resolveSchema={resolveSchema} />
                ))}
            </div>
          </div>
        ))}

        <div id="webhooks" className="mb-10 scroll-mt-4">
          <h2 className="text-lg font-semibold text-neutral-900">Webhook events</h2>
          <p className="mb-3 text-sm text-neutral-500">What Easel POSTs to a trigger&apos;s hook_url.</p>
          <div className="space-y-4">
            {webhooks.map(([name, item]) => (
              <section key={name} className="rounded-lg border border-neutral-200 bg-white p-5">
                <div className="flex items-center gap-3">
                  <MethodBadge method="post" />
                  <code className="font-mono text-sm">{name}</code>
                </div>
                <h3 className="mt-2 text-base font-semibold">{item.post.summary}</h3>
                <Markdown text={item.post.description} className="mt-1" />
                <div className="mt-2 text-sm">
                  Body:{" "}
                  <a href={`#${schemaAnchor("WebhookPayload")}`} className="font-mono text-blue-700 hover:underline">
                    WebhookPayload
                  </a>{" "}
                  with <code className="font-mono">event: &quot;{name}&quot;</code>; headers{" "}
                  {(item.post.parameters as Parameter[]).map((p, i) => (
                    <span key={p.name}>
                      {i > 0 && ", "}
                      <code className="font-mono">{p.name}</code>
                    </span>
                  ))}
                  .
                </div>
              </section>
            ))}
          </div>
        </div>

        <div id="schemas" className="scroll-mt-4">
          <h2 className="mb-3 text-lg font-semibold text-neutral-900">Schemas</h2>
          <div className="space-y-4">
            {Object.entries(schemas).map(([name, schema]) => (
              <section key={name} id={schemaAnchor(name)} className="scroll-mt-4 rounded-lg border border-neutral-200 bg-white p-5">
                <h3 className="font-mono text-base font-semibold">{name}</h3>
                <Markdown text={schema.description} className="mb-2" />
                <SchemaView schema={schema} />
              </section>
            ))}
          </div>
        </div>
      </main>
    </div>
  );
}
