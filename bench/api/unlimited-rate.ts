/**
 * Imported first by the in-process bench: Easel's environment is read once, when a module first
 * asks for it, so the rate limits must be lifted before any of Easel's modules load.
 */
process.env.EASEL_RATE_LIMIT_PER_MIN = "1000000000";
process.env.EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN = "1000000000";
