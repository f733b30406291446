CREATE TABLE "slack_names" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "current_step" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "current_step_at" timestamp with time zone;