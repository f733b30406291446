ALTER TABLE "pending_questions" ADD COLUMN "thread_ts" text;--> statement-breakpoint
ALTER TABLE "pending_questions" ADD COLUMN "via" text;--> statement-breakpoint
ALTER TABLE "pending_questions" ADD COLUMN "engages" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "pending_questions" ADD COLUMN "posted_channel_id" text;--> statement-breakpoint
ALTER TABLE "pending_questions" ADD COLUMN "posted_ts" text;--> statement-breakpoint
ALTER TABLE "pending_questions" ADD COLUMN "reaction" text;--> statement-breakpoint
ALTER TABLE "pending_questions" ADD COLUMN "reacted_ts" text;