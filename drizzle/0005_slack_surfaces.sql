CREATE TABLE "reaction_trigger_claims" (
	"channel_id" text NOT NULL,
	"message_ts" text NOT NULL,
	"reaction" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reaction_trigger_claims_channel_id_message_ts_reaction_pk" PRIMARY KEY("channel_id","message_ts","reaction")
);
--> statement-breakpoint
CREATE TABLE "user_app_context" (
	"team_id" text NOT NULL,
	"user_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_app_context_team_id_user_id_pk" PRIMARY KEY("team_id","user_id")
);
