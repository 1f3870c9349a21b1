/**
 * Bearer tokens: made from 32 random bytes, compared in time that depends on
 * their lengths only (a comparison that stops at the first difference would
 * tell an attacker how much of a guess was right).
 *
 * @module
 */

/**
 * A new token: 32 random bytes, base64url (43 characters).
 *
 * @returns The token.
 */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/**
 * Whether two tokens are the same, in time that depends on their lengths only.
 *
 * @param a One token.
 * @param b The other.
 * @returns True when they are equal.
 */
export function sameToken(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let differ = 0;
  for (let i = 0; i < a.length; i++) differ |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return differ === 0;
}
