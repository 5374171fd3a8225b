import type { components } from "./generated/openapi";

export type Asset = components["schemas"]["Asset"];
export type Version = components["schemas"]["Version"];
export type PreparedUpload = components["schemas"]["PreparedUpload"];
export type WebhookPayload = components["schemas"]["WebhookPayload"];
export type { components, operations, paths } from "./generated/openapi";
