/** A board access token lives between one minute and one hour (contract §5), in whole seconds. */
export const BOARD_TOKEN_MIN_SECONDS = 60;
export const BOARD_TOKEN_MAX_SECONDS = 3600;
