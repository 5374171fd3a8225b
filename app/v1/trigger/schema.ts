// The request schemas live with the response schemas in lib/openapi/schemas, which the OpenAPI document is built from.
export { CreateTriggerBody, ListDeliveriesQuery, ListTriggersQuery } from "@/lib/openapi/schemas/webhooks";
