/**
 * The MCP SDK's OAuthClientProvider for one person on one server, backed by the database (OAuthStore). The SDK's
 * auth() does the OAuth: protected-resource and authorization-server metadata discovery, dynamic client
 * registration (or the `clientId` / `clientSecret` of the server's entry), PKCE, the `resource` parameter, refresh.
 * This provider only keeps what it is given — tokens per (team, person, server), the registration per server — and,
 * where a desktop client would open a browser, captures the authorization URL and records the sign-in (state and
 * verifier) so the Connect prompt can show the link and the callback can finish it on any replica.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformationFullSchema,
  OAuthTokensSchema,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpServerConfig } from '../mcp-config';
import type { OAuthStore, PersonServerKey } from './oauth-store';

export interface CapturedSignIn {
  authorizationUrl: string;
  requestId: number;
}

export interface PersonAuthProviderOptions {
  store: OAuthStore;
  key: PersonServerKey;
  server: McpServerConfig;
  /** `${PUBLIC_URL}/oauth/callback`. */
  redirectUrl: string;
  clientName?: string;
  /** The callback's provider: the verifier of the sign-in it finishes. */
  codeVerifier?: string;
}

export class PersonAuthProvider implements OAuthClientProvider {
  private pendingState?: string;
  private pendingVerifier?: string;
  private captured?: CapturedSignIn;

  constructor(private readonly options: PersonAuthProviderOptions) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const auth = this.options.server.auth;
    return {
      client_name: this.options.clientName ?? 'threadwise',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: auth?.clientSecret ? 'client_secret_post' : 'none',
      ...(auth?.scopes?.length ? { scope: auth.scopes.join(' ') } : {}),
    };
  }

  /** The sign-in the last auth() started (REDIRECT), if any. */
  get signIn(): CapturedSignIn | undefined {
    return this.captured;
  }

  state(): string {
    this.pendingState = randomBytes(32).toString('base64url');
    return this.pendingState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const auth = this.options.server.auth;
    if (auth?.clientId) return { client_id: auth.clientId, ...(auth.clientSecret ? { client_secret: auth.clientSecret } : {}) };
    const stored = await this.options.store.client(this.options.key.server);
    const parsed = stored && OAuthClientInformationFullSchema.safeParse(stored);
    return parsed?.success ? { ...parsed.data, ...(typeof stored!.issuer === 'string' ? { issuer: stored!.issuer } : {}) } : undefined;
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    if (this.options.server.auth?.clientId) return; // pre-registered in mcp.json: nothing to keep
    await this.options.store.saveClient(this.options.key.server, { ...information });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const stored = await this.options.store.tokens(this.options.key);
    if (!stored) return undefined;
    const parsed = OAuthTokensSchema.safeParse(stored);
    return parsed.success ? ({ ...parsed.data, ...(typeof stored.issuer === 'string' ? { issuer: stored.issuer } : {}) } as OAuthTokens) : undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // With an expiry, when it was issued: for App Home ("expires …") and a refresh before a call, never a guess.
    const stamped = { ...tokens, obtained_at: Date.now() };
    await this.options.store.saveTokens(this.options.key, stamped);
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const state = authorizationUrl.searchParams.get('state') ?? this.pendingState;
    if (!state || !this.pendingVerifier) throw new Error('the sign-in cannot start: no state or PKCE verifier');
    const { id } = await this.options.store.startSignIn({ ...this.options.key, state, codeVerifier: this.pendingVerifier });
    this.captured = { authorizationUrl: authorizationUrl.toString(), requestId: id };
    this.pendingVerifier = undefined;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.pendingVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.options.codeVerifier) throw new Error('no sign-in in progress for this person and server');
    return this.options.codeVerifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const { store, key } = this.options;
    if (scope === 'all' || scope === 'tokens') await store.deleteGrant(key);
    if ((scope === 'all' || scope === 'client') && !this.options.server.auth?.clientId) await store.forgetClient(key.server);
    if (scope === 'all' || scope === 'discovery') await store.saveDiscovery(key.server, null);
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const stored = await this.options.store.discovery(this.options.key.server);
    return stored && typeof stored.authorizationServerUrl === 'string' ? (stored as unknown as OAuthDiscoveryState) : undefined;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.options.store.saveDiscovery(this.options.key.server, JSON.parse(JSON.stringify(state)) as Record<string, unknown>);
  }
}
