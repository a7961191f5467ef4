import "server-only";

/**
 * Agents whose ACP flag was renamed: Gemini CLI took `--acp` in 0.33 (google-gemini/gemini-cli
 * PR #21171; `packages/cli/src/config/config.ts` keeps `--experimental-acp` as "deprecated, use
 * --acp instead"). Before that, its strict yargs parser refuses the new flag ("Unknown argument:
 * acp") and exits 1. The console runs the current flag and, when the agent refuses it that way,
 * the old one from the next start on.
 */
const RENAMED: readonly { flag: string; legacy: string; refused: RegExp }[] = [
  { flag: "--acp", legacy: "--experimental-acp", refused: /Unknown arguments?:[^\n]*\bacp\b/ },
];

/**
 * When the agent's last output says it does not know a renamed flag in `command`, puts the legacy
 * flag in its place (in place: the supervisor reads the array at each spawn) and returns the
 * swap; otherwise `undefined`.
 */
export function fallBackToLegacyFlag(
  command: string[],
  output: readonly string[],
): { from: string; to: string } | undefined {
  for (const r of RENAMED) {
    const at = command.indexOf(r.flag, 1);
    if (at < 0 || !output.some((line) => r.refused.test(line))) continue;
    command[at] = r.legacy;
    return { from: r.flag, to: r.legacy };
  }
  return undefined;
}
