import { defineConfig } from 'drizzle-kit';

// Migrations are generated here and applied by the app itself at start (src/store/migrate.ts), for PGlite and
// PostgreSQL alike. drizzle-kit never connects to a database in this project.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/schema.ts',
  out: './drizzle',
});
