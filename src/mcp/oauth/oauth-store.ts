/**
 * What per-person sign-in needs from storage, declared here and implemented by store/grant-store.ts
 * (createOAuthStore), which matches it by shape: mcp/ and store/ sit side by side and import nothing of each other.
 * Values are plain JSON objects; secrets in them are sealed by the store, never by this side.
 */
export interface PersonServerKey {
  teamId: string;
  userId: string;
  /** The server's name in mcp.json. */
  server: string;
}

export interface OAuthStore {
  tokens(key: PersonServerKey): Promise<Record<string, unknown> | undefined>;
  saveTokens(key: PersonServerKey, tokens: Record<string, unknown>): Promise<void>;
  deleteGrant(key: PersonServerKey): Promise<boolean>;
  /** The grant was used (retention counts from the last use). */
  touch(key: PersonServerKey): Promise<void>;
  client(server: string): Promise<Record<string, unknown> | undefined>;
  saveClient(server: string, information: Record<string, unknown>): Promise<void>;
  forgetClient(server: string): Promise<void>;
  discovery(server: string): Promise<Record<string, unknown> | undefined>;
  saveDiscovery(server: string, discovery: Record<string, unknown> | null): Promise<void>;
  cachedTools(server: string): Promise<unknown[] | undefined>;
  saveTools(server: string, tools: unknown[]): Promise<void>;
  /** A sign-in begins: its state and PKCE verifier kept (single-use, 10 minutes) for the callback. */
  startSignIn(request: PersonServerKey & { state: string; codeVerifier: string }): Promise<{ id: number }>;
  /** This run asked this person before and the link expired unused: do not ask again within the run. */
  signInExpired(runId: number, key: PersonServerKey): Promise<boolean>;
}
