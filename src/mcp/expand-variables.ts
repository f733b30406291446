/**
 * `${VAR}` and `${VAR:-default}` in mcp.json strings, the syntax other MCP clients use, so a file written for them
 * works here. Tokens stay out of the file and come from the environment passed in (never read from process.env
 * here: the caller decides what the environment is).
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Expansion {
  value: string;
  /** Variables the text named that the environment does not set (and that have no default). */
  missing: string[];
  /** Names of the variables that were substituted. */
  used: string[];
  /** The substituted values, in order (for the secret list). */
  substituted: string[];
}

export function expandVariables(text: string, env: Record<string, string | undefined>): Expansion {
  const missing: string[] = [];
  const used: string[] = [];
  const substituted: string[] = [];
  const value = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (set !== undefined) {
      used.push(name);
      substituted.push(set);
      return set;
    }
    if (fallback !== undefined) return fallback;
    if (!missing.includes(name)) missing.push(name);
    return whole;
  });
  return { value, missing, used, substituted };
}
