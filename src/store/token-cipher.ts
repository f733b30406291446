/**
 * People's tool tokens at rest: AES-256-GCM (Node's crypto) under TOKEN_ENCRYPTION_KEY, a fresh random 12-byte IV
 * for every write, the row's identity as additional authenticated data (a ciphertext copied into another person's
 * row does not open there), and the id of the key beside it. Rotation: set the new key as TOKEN_ENCRYPTION_KEY and
 * the old one as TOKEN_ENCRYPTION_KEY_PREVIOUS; values sealed by the old key are opened with it and sealed again
 * with the new one when next read (`stale`), so the previous key can be dropped once every grant was used or
 * refreshed — or at once, at the cost of those people connecting again.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ThreadwiseError } from '../core/errors';

interface SealedValue {
  /** base64(iv ‖ tag ‖ ciphertext). */
  sealed: string;
  keyId: string;
}

export interface TokenCipher {
  /** The current key's id (a fingerprint, not the key). */
  readonly keyId: string;
  seal(plaintext: string, context: string): SealedValue;
  /** `stale`: sealed with the previous key; seal it again. Throws TokenKeyUnknown / a GCM failure otherwise. */
  open(value: SealedValue, context: string): { plaintext: string; stale: boolean };
}

class TokenKeyUnknown extends ThreadwiseError<'token_key_unknown'> {
  override readonly name = 'TokenKeyUnknown';
  constructor(keyId: string) {
    super('token_key_unknown', `a stored token was sealed with key ${keyId}, which is neither TOKEN_ENCRYPTION_KEY nor TOKEN_ENCRYPTION_KEY_PREVIOUS; that person must connect again`, { context: { keyId } });
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key's public name: the first 16 hex digits of SHA-256 over a domain label and the key. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('threadwise token key\0').update(key).digest('hex').slice(0, 16);
}

export function createTokenCipher(keys: { current: Buffer; previous?: Buffer }): TokenCipher {
  for (const key of [keys.current, keys.previous]) {
    if (key && key.length !== 32) throw new Error('token encryption keys are 32 bytes');
  }
  const currentId = keyIdOf(keys.current);
  const byId = new Map<string, Buffer>([[currentId, keys.current]]);
  if (keys.previous) byId.set(keyIdOf(keys.previous), keys.previous);
  return {
    keyId: currentId,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys.current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: currentId };
    },
    open(value, context) {
      const key = byId.get(value.keyId);
      if (!key) throw new TokenKeyUnknown(value.keyId);
      const bytes = Buffer.from(value.sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plaintext = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      return { plaintext, stale: value.keyId !== currentId };
    },
  };
}
