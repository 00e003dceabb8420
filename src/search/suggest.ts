/**
 * Suggestions: the tools to load when the user speaks, before the model has searched. A turn's message is ranked
 * like a query; a tool is suggested only when its match is confident by a rule stricter than search's threshold,
 * because a wrong suggestion costs every following request of the session its tokens, while a missing one costs
 * only a search:
 *
 *   - its score reaches `threshold` (tenant setting `suggest_threshold`, default SUGGEST_THRESHOLD), judged by its
 *     `gate` when it has one (a short message's operation it lacks, operations.ts; the score without its naming
 *     factor, naming.ts), as search's no-match decision is;
 *   - it is nearly as good as the best tool (at least NEAR_BEST of its score): suggestions are the clear winners,
 *     not the next few of a list;
 *   - it holds at least one of the message's own words (a tool reached only through synonyms is not suggested);
 *   - it is not already active in the session (the caller passes those as `exclude`).
 *
 * At most `max` tools (tenant setting `suggest_max`, default 3; 0 turns suggestions off). Chit-chat ("thanks!",
 * "ok great") scores far below the threshold: its words are stop words or name nothing in a catalog. Chosen with
 * `npm run eval -- --suggest` (docs/suggestions.md).
 */
import type { Hit, SearchOptions, ToolIndex } from "./tool-index.ts";

export const SUGGEST_THRESHOLD = 3.5;
export const SUGGEST_MAX = 3;
const NEAR_BEST = 0.95;

export interface SuggestOptions
  extends Pick<
    SearchOptions,
    "params" | "synonyms" | "builtinSynonyms" | "maxTerms" | "day" | "halfLifeDays" | "tuning"
  > {
  max: number;
  threshold: number;
  /** Tools that must not be suggested (already active, or always loaded). */
  exclude?: ReadonlySet<string>;
}

/** The tools to suggest for `message`, best first (see the module comment). */
export function suggest(index: ToolIndex, message: string, options: SuggestOptions): Hit[] {
  if (options.max <= 0) return [];
  const { max, threshold, exclude, ...search } = options;
  // Rank a few more than `max`: excluded tools may be among the best.
  const hits = index.search(message, { ...search, limit: max + (exclude?.size ?? 0), threshold: 0 });
  const best = hits[0]?.score ?? 0;
  return hits
    .filter((h) => (h.gate ?? h.score) >= threshold && h.score >= NEAR_BEST * best && h.match !== "synonyms")
    .filter((h) => !exclude?.has(h.id))
    .slice(0, max);
}
