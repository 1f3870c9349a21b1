/**
 * The redacted forms of the long texts redacted lately. One call's text is
 * redacted by each sink that writes it down (the session log, the
 * interaction log, the efferent copy, the Hook API's events), and an agent
 * sends the same content again and again (a file it edits, a command it
 * re-runs): redacting a long text once for all of them is most of the
 * redaction's cost saved.
 *
 * @module
 */

/** Texts shorter than this are redacted each time (looking them up costs about as much). */
const MIN_REMEMBERED_CHARS = 256;
/** How many texts are remembered, for all redactors. */
const MAX_TEXTS = 64;
/** How many characters of texts and their forms are kept alive, at most. */
const MAX_CHARS = 4 * 1024 * 1024;

/** The memories, one for each set of keys redactors were made for. */
const BY_KEYS = new Map<string, RecentTexts>();

/**
 * The memory shared by the redactors of one set of keys.
 *
 * @param keys The redactor's keys, flattened.
 * @returns Their memory.
 */
export function recentTextsFor(keys: readonly string[]): RecentTexts {
  const scope = keys.join("\n");
  let recent = BY_KEYS.get(scope);
  if (!recent) BY_KEYS.set(scope, recent = new RecentTexts());
  return recent;
}

/** A bounded memory of texts and their redacted forms; the least recently used go first. */
export class RecentTexts {
  #forms = new Map<string, string>();
  #chars = 0;

  /**
   * The redacted form of a text, computed by `redact` unless it was lately.
   *
   * @param text The text.
   * @param redact The redaction, a function of `text` alone (and of the keys this memory is for).
   * @returns The redacted form.
   */
  formOf(text: string, redact: (text: string) => string): string {
    if (text.length < MIN_REMEMBERED_CHARS || text.length > MAX_CHARS / 4) return redact(text);
    const known = this.#forms.get(text);
    if (known !== undefined) {
      // Most recently used last.
      this.#forms.delete(text);
      this.#forms.set(text, known);
      return known;
    }
    const form = redact(text);
    this.#forms.set(text, form);
    this.#chars += text.length + form.length;
    for (const [oldest, oldForm] of this.#forms) {
      if (this.#forms.size <= MAX_TEXTS && this.#chars <= MAX_CHARS) break;
      this.#forms.delete(oldest);
      this.#chars -= oldest.length + oldForm.length;
    }
    return form;
  }
}
