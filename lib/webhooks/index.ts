export { createTrigger, type CreateTriggerInput } from "./create-trigger";
export { deleteTrigger } from "./delete-trigger";
export { listTriggers, type ListTriggersInput } from "./list-triggers";
export { renewTrigger } from "./renew-trigger";
export { listDeliveries } from "./list-deliveries";
export { resendDelivery } from "./resend-delivery";
