CREATE TABLE "chunks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"content_hash" text NOT NULL,
	"ordinal" integer NOT NULL,
	"text" text NOT NULL,
	"location" text NOT NULL,
	"page" integer,
	"start_offset" integer NOT NULL,
	"end_offset" integer NOT NULL,
	"tokens" integer NOT NULL,
	"tsv" "tsvector" NOT NULL,
	"cjk_tsv" "tsvector",
	"embedding" real[],
	"embedding_model" text
);
--> statement-breakpoint
CREATE TABLE "claimed_messages" (
	"channel_id" text NOT NULL,
	"message_ts" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "claimed_messages_channel_id_message_ts_pk" PRIMARY KEY("channel_id","message_ts")
);
--> statement-breakpoint
CREATE TABLE "documents" (
	"content_hash" text PRIMARY KEY NOT NULL,
	"text" text,
	"page_count" integer,
	"outline" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"segments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"notes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error_code" text,
	"error_message" text,
	"indexed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "feedback" (
	"run_id" bigint NOT NULL,
	"user_id" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feedback_run_id_user_id_pk" PRIMARY KEY("run_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "image_descriptions" (
	"slack_file_id" text PRIMARY KEY NOT NULL,
	"description" text NOT NULL,
	"model" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_steps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"iteration" integer NOT NULL,
	"arguments" jsonb,
	"result_chars" integer,
	"input_tokens" integer,
	"output_tokens" integer,
	"duration_ms" integer NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"thread_id" bigint NOT NULL,
	"status" text NOT NULL,
	"trigger_ts" text NOT NULL,
	"trigger_user_id" text,
	"team_id" text,
	"folded_ts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"model" text,
	"strategy" text,
	"iterations" integer DEFAULT 0 NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"skills_loaded" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"activity" text,
	"answer_ts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status_message_ts" text,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "slack_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_file_contents" (
	"slack_file_id" text PRIMARY KEY NOT NULL,
	"content_hash" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "thread_files" (
	"thread_id" bigint NOT NULL,
	"file_id" text NOT NULL,
	"slack_file_id" text,
	"source_file_id" text,
	"name" text NOT NULL,
	"mime_type" text NOT NULL,
	"file_type" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"message_ts" text NOT NULL,
	"author_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "thread_files_thread_id_file_id_pk" PRIMARY KEY("thread_id","file_id")
);
--> statement-breakpoint
CREATE TABLE "thread_messages" (
	"thread_id" bigint NOT NULL,
	"ts" text NOT NULL,
	"payload" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "thread_messages_thread_id_ts_pk" PRIMARY KEY("thread_id","ts")
);
--> statement-breakpoint
CREATE TABLE "threads" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"team_id" text DEFAULT '' NOT NULL,
	"channel_id" text NOT NULL,
	"thread_ts" text NOT NULL,
	"engaged" boolean DEFAULT false NOT NULL,
	"summary" text,
	"summary_turns" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_content_hash_documents_content_hash_fk" FOREIGN KEY ("content_hash") REFERENCES "public"."documents"("content_hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_steps" ADD CONSTRAINT "run_steps_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "thread_files" ADD CONSTRAINT "thread_files_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "thread_messages" ADD CONSTRAINT "thread_messages_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "chunks_doc_ordinal_idx" ON "chunks" USING btree ("content_hash","ordinal");--> statement-breakpoint
CREATE INDEX "chunks_tsv_idx" ON "chunks" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "chunks_cjk_tsv_idx" ON "chunks" USING gin ("cjk_tsv");--> statement-breakpoint
CREATE INDEX "run_steps_run_idx" ON "run_steps" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "runs_thread_idx" ON "runs" USING btree ("thread_id","id");--> statement-breakpoint
CREATE INDEX "runs_status_idx" ON "runs" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_trigger_idx" ON "runs" USING btree ("thread_id","trigger_ts");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_one_pending_per_thread" ON "runs" USING btree ("thread_id") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "runs_one_running_per_thread" ON "runs" USING btree ("thread_id") WHERE status = 'running';--> statement-breakpoint
CREATE UNIQUE INDEX "thread_files_slack_idx" ON "thread_files" USING btree ("thread_id","slack_file_id");--> statement-breakpoint
CREATE UNIQUE INDEX "threads_channel_thread_idx" ON "threads" USING btree ("channel_id","thread_ts");