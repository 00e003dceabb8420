/**
 * A tenant's synonym map: words its users say, mapped to the words its tools use. At query time,
 * a query that contains a key is also searched for each of the key's expansions (search/query.ts):
 * `{"repo": ["repository"], "pr": ["pull request"]}` lets "list my repos" and "merge the pr" find
 * tools that only say "repository" and "pull request". One way only: to make two words mutual,
 * map each to the other. Keys and expansions are words or short phrases, matched after the same
 * analysis as tool text (case, plurals and stems do not matter).
 */
import { z } from "zod";
import { analyze } from "../search/tokenizer.ts";
import { limitNote, type Limits } from "../config/limits.ts";

/** A key or an expansion: a word or a phrase of at most this many searchable words. */
const MAX_WORDS = 4;
const MAX_CHARS = 64;

/** Why a key or an expansion could not work, or null. */
function phraseProblem(what: string, text: string): string | null {
  if (text.length > MAX_CHARS)
    return `${what} '${text.slice(0, 20)}...' is ${text.length} characters; the limit is ${MAX_CHARS}`;
  const words = analyze(text).length;
  if (words === 0)
    return `${what} '${text}' has no searchable words (only stop words or punctuation), so it could never match`;
  if (words > MAX_WORDS) return `${what} '${text}' has ${words} searchable words; the limit is ${MAX_WORDS}`;
  return null;
}

const phraseSchema = z.string().superRefine((text, ctx) => {
  const problem = phraseProblem("expansion", text);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export function synonymsSchema(limits: Limits) {
  return z
    .record(
      z.string(),
      z
        .array(phraseSchema)
        .min(1)
        .max(
          limits.max_synonym_expansions,
          `at most ${limits.max_synonym_expansions} expansions per key ${limitNote("max_synonym_expansions", limits)}`,
        ),
    )
    .superRefine((map, ctx) => {
      const keys = Object.keys(map);
      if (keys.length > limits.max_synonyms) {
        ctx.addIssue({
          code: "custom",
          message:
            `at most ${limits.max_synonyms} synonym keys per tenant; got ${keys.length} ` +
            `${limitNote("max_synonyms", limits)}`,
        });
      }
      for (const key of keys) {
        const problem = phraseProblem("key", key);
        if (problem) ctx.addIssue({ code: "custom", path: [key], message: problem });
      }
    })
    .describe(
      `Key (a word or phrase users say) -> expansions (words or phrases tools use), each up to ` +
        `${MAX_CHARS} characters and ${MAX_WORDS} words; ` +
        `at most ${limits.max_synonyms} keys and ${limits.max_synonym_expansions} expansions per ` +
        `key. One way: map both directions to make words mutual.`,
    )
    .meta({ id: "Synonyms", example: { repo: ["repository"], pr: ["pull request"] } });
}

export type SynonymMap = Record<string, string[]>;
