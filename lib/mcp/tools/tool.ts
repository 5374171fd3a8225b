import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Principal } from "../../auth/principal";
import type { Scope, Workspace } from "../../db/schema";
import type { Deps } from "../../deps";
import { BOUNDS } from "../../http/bounds";
import type { FieldCodes } from "../../http/parse";
import type { MediaLinker } from "../../media/links";
import type { StorageDriver } from "../../storage/types";
import type { DownloadOptions } from "../download";

/** What one MCP request runs with: the caller, the app's ports, and the request (for the origin of links). */
export type McpContext = { deps: Deps; principal: Principal; req: Request; download?: DownloadOptions };

/** What a tool sees: the request context plus per-call resolution of workspace, links and storage. */
export type ToolContext = McpContext & {
  /** The workspace named by the tool's `organization`, as this principal may see it (404 otherwise). */
  workspace(slug: string): Promise<Workspace>;
  link(): Promise<MediaLinker>;
  storage(workspace: Workspace): StorageDriver;
};

export type ToolDef<S extends z.ZodObject = z.ZodObject> = {
  name: string;
  title: string;
  /** Written for the assistant: when to use the tool, what it returns, and what not to do. */
  description: string;
  /** `read` tools are offered to every API token, `write` tools only to tokens with `write`. */
  scope: Scope;
  annotations: ToolAnnotations;
  input: S;
  /** Input fields whose failure has its own code, as over REST (version_number → invalid_version_number). */
  fieldCodes?: FieldCodes;
  /** Returns the tool's structured result; throws DomainError for anything the caller should see. */
  run(ctx: ToolContext, args: z.output<S>): Promise<Record<string, unknown>>;
};

export const defineTool = <S extends z.ZodObject>(def: ToolDef<S>): ToolDef<S> => def;

// ---- input fields every tool shares

export const organization = z.string().min(1).max(BOUNDS.slug).describe("Workspace slug (the <slug> of the REST paths /v1/<slug>/…).");

export const assetToken = z.string().min(1).max(BOUNDS.assetToken).describe("The asset's token (its `token` field).");

/** Same rule as REST: anything but a positive integer answers invalid_version_number. */
export const versionNumber = z
  .number({ error: "must be a positive integer" })
  .int("must be a positive integer")
  .min(1, "must be a positive integer")
  .describe("A stored version's `version_number`, from list_asset_versions (1 … head_version_number − 1).");

export const VERSION_FIELD_CODES: FieldCodes = { version_number: "invalid_version_number" };

export const comment = z.string().max(BOUNDS.comment);
