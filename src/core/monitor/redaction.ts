// Secrets must not reach logs, errors or stderr views: a server's own secret values are masked first, then the
// caller's general redactor runs.

export const MASK = '****';
/** Very short values would mask ordinary words everywhere; they are too weak to be worth hiding anyway. */
const MIN_SECRET_LENGTH = 4;

export function makeRedactor(
  secretValues: readonly string[] | undefined,
  general: ((text: string) => string) | undefined,
): (text: string) => string {
  const secrets = [...new Set(secretValues ?? [])]
    .filter((value) => value.length >= MIN_SECRET_LENGTH)
    // Longest first so a secret that contains another is masked whole.
    .sort((a, b) => b.length - a.length);
  return (text: string) => {
    let result = text;
    for (const secret of secrets) {
      result = result.split(secret).join(MASK);
    }
    return general ? general(result) : result;
  };
}
