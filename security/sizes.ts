/**
 * Sizes for people, as messages and listings show them.
 *
 * @module
 */

/**
 * Human size: `512 B`, `3.1 KB`, `9.0 MB`.
 *
 * @param bytes A size in bytes.
 * @returns The size for people.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}
