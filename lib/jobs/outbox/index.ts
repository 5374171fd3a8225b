export { stageEvent } from "./stage";
export { handOff } from "./hand-off";
export { deliver } from "./deliver";
export { OutboxRelay, startOutboxRelay } from "./relay";
export { eventsOf, storeAndHandOff, transactionWithEvents, type StageEvent } from "./with-events";
export { backlog } from "./store";
export { defaultRetryDelayMs, setRetryDelay } from "./state";
export { wakeRelay } from "./state";
