import { handleTestClock } from "@/lib/testing/test-clock";

// POST /api/test/clock — moves the server clock; only with EASEL_TEST_CLOCK=1
export const POST = handleTestClock;
