import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * The lowest zxcvbn score (0 to 4) of a new backup passphrase. The server keeps the encrypted
 * backup, so a passphrase is only as good as the guesses it takes offline: 3 is "safely
 * unguessable" to zxcvbn (about 10^8 guesses or more), on top of PBKDF2's 600,000 iterations.
 */
export const MIN_PASSPHRASE_SCORE = 3;

/** zxcvbn and its word lists (English and French), about 1 MB compressed: chunks of their own, fetched when needed. */
const importZxcvbn = () =>
  Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en'), import('@zxcvbn-ts/language-fr')]);

let modules: ReturnType<typeof importZxcvbn> | null = null;
let estimator: Promise<ZxcvbnFactory> | null = null;

function loadModules() {
  modules ??= importZxcvbn().catch((error: unknown) => {
    modules = null; // a failed download is tried again next time
    throw error;
  });
  return modules;
}

/** Starts fetching the estimator while the user types, so that checking the passphrase is quick. */
export function preloadPassphraseStrength(): void {
  loadModules().catch(() => undefined);
}

/**
 * zxcvbn's score (0 to 4) of a passphrase; `userInputs` (the user's name, e-mail...) count as
 * easy to guess. Building the estimator's dictionaries takes a moment, so it is done once.
 */
export async function passphraseScore(passphrase: string, userInputs: string[]): Promise<number> {
  estimator ??= loadModules()
    .then(
      ([{ ZxcvbnFactory }, common, en, fr]) =>
        new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...en.dictionary, ...fr.dictionary }, graphs: common.adjacencyGraphs }),
    )
    .catch((error: unknown) => {
      estimator = null;
      throw error;
    });
  return (await estimator).check(passphrase, userInputs).score;
}
