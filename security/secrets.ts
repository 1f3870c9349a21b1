/**
 * Secret-bearing names: credential stores and private keys that no tool and
 * no command should see, inside the roots as outside them. They are hidden
 * the same way everywhere: from the file tools and searches (they join the
 * blacklist), and from shell commands (the sandbox mounts an empty file or
 * directory over each one found). A root that is the user's home shows the
 * agent neither `~/.ssh` in `read_file` nor in `run_shell`.
 *
 * Only the user lifts an entry, from outside the roots (`"unhide"` in a
 * config file outside every root), exactly as listed here.
 *
 * @module
 */

/**
 * Hidden at any depth of every root, in the blacklist's glob dialect (a
 * glob without `/` matches any one segment; `**\/x/y` matches `x/y` at any
 * depth).
 */
export const SECRET_NAMES: readonly string[] = Object.freeze([
  ".ssh",
  ".gnupg",
  ".aws",
  "**/.docker/config.json",
  "**/.kube/config",
  ".netrc",
  "_netrc",
  ".git-credentials",
  ".pypirc",
  "**/.config/gcloud",
  "**/.config/gh",
  "**/.cargo/credentials",
  "**/.cargo/credentials.toml",
  "**/.local/share/keyrings",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  "id_ecdsa_sk",
  "id_ed25519_sk",
  "*.ppk",
  "*.p12",
  "*.pfx",
]);

/**
 * Hidden beneath the user's home only (relative to it), besides
 * {@linkcode SECRET_NAMES}: names a project may hold openly (`.env`, a
 * registry's `.npmrc`) that hold the user's own tokens at the top of a home.
 */
export const HOME_SECRETS: readonly string[] = Object.freeze([
  ".env",
  ".npmrc",
  ".docker",
  ".kube",
]);

/**
 * The secret globs in force: {@linkcode SECRET_NAMES} less what the user
 * lifted.
 *
 * @param unhide Entries lifted, exactly as listed.
 * @returns The globs.
 * @throws {TypeError} When a lifted entry is not in the list.
 */
export function secretNames(unhide: readonly string[] = []): string[] {
  for (const name of unhide) {
    if (!SECRET_NAMES.includes(name)) {
      throw new TypeError(
        `Cannot unhide "${name}": it is not a secret name (they are ${SECRET_NAMES.join(", ")})`,
      );
    }
  }
  return SECRET_NAMES.filter((name) => !unhide.includes(name));
}

/**
 * The home's secrets as absolute paths: {@linkcode HOME_SECRETS}, and each
 * plain entry of the secret names (not a pattern), beneath `home`.
 *
 * @param home The user's home directory.
 * @param unhide Secret names lifted.
 * @returns Absolute paths (they need not exist).
 */
export function homeSecrets(home: string, unhide: readonly string[] = []): string[] {
  const plain = secretNames(unhide).map((name) => name.replace(/^\*\*\//, ""))
    .filter((name) => !/[*?[{]/.test(name));
  return [...new Set([...HOME_SECRETS, ...plain])].map((name) => `${home}/${name}`);
}
