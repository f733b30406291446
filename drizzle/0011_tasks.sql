CREATE TABLE "scheduled_tasks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"team_id" text DEFAULT '' NOT NULL,
	"channel_id" text NOT NULL,
	"thread_ts" text NOT NULL,
	"owner_id" text NOT NULL,
	"prompt" text NOT NULL,
	"schedule_kind" text NOT NULL,
	"schedule" text NOT NULL,
	"time_zone" text NOT NULL,
	"next_due_at" timestamp with time zone,
	"state" text DEFAULT 'active' NOT NULL,
	"paused_reason" text,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"last_result" text,
	"last_error" text,
	"last_run_at" timestamp with time zone,
	"announcement_ts" text,
	"changed_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scheduled_tasks_version" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_occurrences" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"task_id" bigint NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"claimed_by" text NOT NULL,
	"late_ms" bigint DEFAULT 0 NOT NULL,
	"run_id" bigint,
	"result" text,
	"error" text,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "task_occurrences" ADD CONSTRAINT "task_occurrences_task_id_scheduled_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."scheduled_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_occurrences" ADD CONSTRAINT "task_occurrences_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scheduled_tasks_due_idx" ON "scheduled_tasks" USING btree ("next_due_at") WHERE state = 'active';--> statement-breakpoint
CREATE INDEX "scheduled_tasks_owner_idx" ON "scheduled_tasks" USING btree ("owner_id","state");--> statement-breakpoint
CREATE INDEX "scheduled_tasks_thread_idx" ON "scheduled_tasks" USING btree ("channel_id","thread_ts");--> statement-breakpoint
CREATE UNIQUE INDEX "task_occurrences_due_idx" ON "task_occurrences" USING btree ("task_id","due_at");--> statement-breakpoint
CREATE INDEX "task_occurrences_run_idx" ON "task_occurrences" USING btree ("run_id");