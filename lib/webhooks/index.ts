export { createTrigger } from "./create-trigger";
export { deleteTrigger } from "./delete-trigger";
export { listTriggers } from "./list-triggers";
export { renewTrigger } from "./renew-trigger";
export { listDeliveries } from "./list-deliveries";
export { resendDelivery } from "./resend-delivery";
