CREATE TABLE "indexed_messages" (
	"channel_id" text NOT NULL,
	"ts" text NOT NULL,
	"team_id" text NOT NULL,
	"thread_ts" text,
	"user_id" text,
	"text" text NOT NULL,
	"edited" boolean DEFAULT false NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"posted_at" timestamp with time zone NOT NULL,
	"tokens" integer NOT NULL,
	"tsv" "tsvector" NOT NULL,
	"cjk_tsv" "tsvector",
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "indexed_messages_channel_id_ts_pk" PRIMARY KEY("channel_id","ts")
);
--> statement-breakpoint
CREATE TABLE "knowledge_channels" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"name" text,
	"kind" text,
	"backfilled_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"scope" text NOT NULL,
	"channel_id" text NOT NULL,
	"author_id" text NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "indexed_messages_tsv_idx" ON "indexed_messages" USING gin ("tsv") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "indexed_messages_cjk_tsv_idx" ON "indexed_messages" USING gin ("cjk_tsv") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "indexed_messages_channel_posted_idx" ON "indexed_messages" USING btree ("channel_id","posted_at");--> statement-breakpoint
CREATE INDEX "indexed_messages_thread_idx" ON "indexed_messages" USING btree ("channel_id","thread_ts");--> statement-breakpoint
CREATE INDEX "indexed_messages_posted_idx" ON "indexed_messages" USING btree ("posted_at");--> statement-breakpoint
CREATE INDEX "memories_channel_idx" ON "memories" USING btree ("team_id","channel_id","created_at");--> statement-breakpoint
CREATE INDEX "memories_author_idx" ON "memories" USING btree ("team_id","author_id","created_at");