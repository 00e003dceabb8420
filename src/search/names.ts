/**
 * Exact-name matching. Users and models often type a tool's name, or the name as another client
 * spelled it (`mcp__github__list_issues`, `github::list_issues`, `github.list_issues`), and BM25
 * over split words does not guarantee that tool comes first. These keys do.
 */
import { splitWords } from "./tokenizer.ts";

const NAMESPACE_SEPARATOR = /__|::|\/|\./g;

export interface NameKeys {
  /** The tool's own name and every spelling of server + name that clients use. */
  exact: string[];
  /** Tails of a namespaced name (`ask_codex` of `mcp__plugin_x__ask_codex`), two words or more. */
  tails: string[];
}

export function nameKeys(server: string, name: string, aliases: readonly string[] = []): NameKeys {
  const exact = [
    name,
    `${server}::${name}`,
    `${server}__${name}`,
    `mcp__${server}__${name}`,
    `${server}.${name}`,
    `${server}/${name}`,
    ...aliases,
  ].map((k) => k.toLowerCase());
  const tails: string[] = [];
  for (const match of name.matchAll(NAMESPACE_SEPARATOR)) {
    const tail = name.slice(match.index + match[0].length);
    if (splitWords(tail).length >= 2) tails.push(tail.toLowerCase());
  }
  return { exact: [...new Set(exact)], tails: [...new Set(tails)] };
}

/** A query as a name key: trimmed, unquoted, lower-case. */
export function queryKey(query: string): string {
  return query
    .trim()
    .replace(/^[`'"]+|[`'"]+$/g, "")
    .toLowerCase();
}
