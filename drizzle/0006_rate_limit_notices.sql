CREATE TABLE "rate_limit_notices" (
	"user_id" text PRIMARY KEY NOT NULL,
	"notified_at" timestamp with time zone DEFAULT now() NOT NULL
);
