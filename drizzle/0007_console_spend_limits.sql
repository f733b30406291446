CREATE TABLE "spend_limit_overrides" (
	"scope" text NOT NULL,
	"subject_id" text NOT NULL,
	"day" date NOT NULL,
	"lifted_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_limit_overrides_scope_subject_id_day_pk" PRIMARY KEY("scope","subject_id","day")
);
--> statement-breakpoint
ALTER TABLE "run_steps" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "run_steps" ADD COLUMN "result_preview" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "channel_id" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "question" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "answer" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cost_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "images_shown" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "runs_channel_created_idx" ON "runs" USING btree ("channel_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_model_created_idx" ON "runs" USING btree ("model","created_at");--> statement-breakpoint
CREATE INDEX "runs_status_created_idx" ON "runs" USING btree ("status","created_at");--> statement-breakpoint
-- Runs recorded before this migration get their thread's channel, so the console's channel filter finds them too.
UPDATE "runs" SET "channel_id" = t."channel_id" FROM "threads" t WHERE t."id" = "runs"."thread_id" AND "runs"."channel_id" IS NULL;
