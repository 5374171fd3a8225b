-- UNLOGGED by hand (drizzle-kit has no way to say it): the shared rate-limit counters are rewritten
-- on every API request and are worth no WAL; a crash or failover empties them (a fresh minute).
CREATE UNLOGGED TABLE "rate_limit_windows" (
	"bucket" text PRIMARY KEY NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
