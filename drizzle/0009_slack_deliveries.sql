CREATE TABLE "pending_questions" (
	"id" text PRIMARY KEY NOT NULL,
	"received_by" text NOT NULL,
	"channel_id" text NOT NULL,
	"user_id" text NOT NULL,
	"team_id" text,
	"question" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"recovered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "replicas" (
	"id" text PRIMARY KEY NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"received_by" text NOT NULL,
	"body" jsonb NOT NULL,
	"retry_num" integer,
	"retry_reason" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"replayed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "slack_deliveries_received_idx" ON "slack_deliveries" USING btree ("received_at");