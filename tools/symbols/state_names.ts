/**
 * The names the symbol tools keep in the state directory: a module with no
 * imports, so that the host's process (which sets untrusted ones aside, in
 * `host/state/state_dir.ts`) can name them without evaluating the tools and
 * their resolvers.
 *
 * @module
 */

/** The word index's file. */
export const WORD_INDEX_FILE = "symbol-words.bin";
/** The kept facts' folder. */
export const FACTS_DIR = "symbol-facts";
/** The scope listings' folder. */
export const SCOPES_DIR = "symbol-scopes";
/** The kept answers' folder. */
export const ANSWERS_DIR = "symbol-answers";
