CREATE TABLE "oauth_grants" (
	"team_id" text NOT NULL,
	"user_id" text NOT NULL,
	"server" text NOT NULL,
	"tokens_sealed" text NOT NULL,
	"key_id" text NOT NULL,
	"scope" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_grants_team_id_user_id_server_pk" PRIMARY KEY("team_id","user_id","server")
);
--> statement-breakpoint
CREATE TABLE "oauth_servers" (
	"server" text PRIMARY KEY NOT NULL,
	"client_sealed" text,
	"key_id" text,
	"discovery" jsonb,
	"tools" jsonb,
	"tools_listed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_sign_ins" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"state_hash" text NOT NULL,
	"team_id" text NOT NULL,
	"user_id" text NOT NULL,
	"server" text NOT NULL,
	"verifier_sealed" text NOT NULL,
	"key_id" text NOT NULL,
	"run_id" bigint,
	"call_id" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "oauth_sign_ins" ADD CONSTRAINT "oauth_sign_ins_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_sign_ins_state_idx" ON "oauth_sign_ins" USING btree ("state_hash");--> statement-breakpoint
CREATE INDEX "oauth_sign_ins_run_idx" ON "oauth_sign_ins" USING btree ("run_id") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "oauth_sign_ins_person_idx" ON "oauth_sign_ins" USING btree ("team_id","user_id","server");