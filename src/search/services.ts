/**
 * Known services a query names (thesaurus/data/services.ts): `zendesk`, `google drive`, `pagerduty`. A query that
 * names a service no tool of the catalog mentions asks for something this catalog cannot do, however well its
 * other words ("open a ... ticket") match: the no-match rule counts such a name against the match (tool-index.ts).
 * A city, a person or a file name the catalog does not mention is an argument, not a capability: only names on the
 * list count.
 */
import { builtin } from "./thesaurus/index.ts";
import { type Analyze, analyze as defaultAnalyze } from "./tokenizer.ts";

/** The service list under one analysis. */
export interface ServiceNames {
  /** Each product's names (aliases of one another), analysed. */
  products: readonly (readonly (readonly string[])[])[];
  /** Every name, by its first term: the product it names and its terms. */
  byFirst: ReadonlyMap<string, readonly { product: number; name: string; terms: readonly string[] }[]>;
}

export function compileServices(analyze: Analyze = defaultAnalyze): ServiceNames {
  const byFirst = new Map<string, { product: number; name: string; terms: string[] }[]>();
  const products = builtin().serviceGroups.map((names, product) =>
    names
      .map((name) => {
        const terms = analyze(name);
        if (terms.length > 0) {
          const list = byFirst.get(terms[0]!) ?? [];
          list.push({ product, name, terms });
          byFirst.set(terms[0]!, list);
        }
        return terms;
      })
      .filter((terms) => terms.length > 0),
  );
  return { products, byFirst };
}

let defaults: ServiceNames | null = null;

/** The service list under the default analysis, compiled on first use. */
export function serviceNames(): ServiceNames {
  defaults ??= compileServices();
  return defaults;
}

/** The products named in `sequence` (a query's analysed words): each once, by the first name the query used. */
function namedProducts(sequence: readonly string[], services: ServiceNames): { product: number; name: string }[] {
  const seen = new Set<number>();
  const named: { product: number; name: string }[] = [];
  sequence.forEach((term, at) => {
    for (const { product, name, terms } of services.byFirst.get(term) ?? []) {
      if (seen.has(product) || !terms.every((t, i) => sequence[at + i] === t)) continue;
      seen.add(product);
      named.push({ product, name });
    }
  });
  return named;
}

/**
 * The services named in `sequence` that the catalog lacks: no tool holds all the terms of any name of the product
 * (`holds`: "ec2" is not present because one tool says "EC" and another "2"). Each product once, by the name the
 * query used.
 */
export function absentServices(
  sequence: readonly string[],
  holds: (terms: readonly string[]) => boolean,
  services: ServiceNames = serviceNames(),
): string[] {
  return namedProducts(sequence, services)
    .filter(({ product }) => !services.products[product]!.some(holds))
    .map(({ name }) => name);
}

/**
 * What a tool of a service the query names ranks by, when the catalog has that service: "add these product
 * descriptions to the catalog index in Pinecone" asks Pinecone's tools, whatever another service's `create_product`
 * matches. A boost of the named service's tools rather than a cut of the others', so that no factor that only ranks
 * puts a score below what decides the match. Ranking only: whether anything matched is decided without it
 * (tool-index.ts `Hit.gate`). Chosen with `npm run eval` (docs/quality.md, "A named service's tools first").
 */
export const SERVICE_BOOST = 1.67;

/** A named service the catalog has: the terms of each of its product's names. */
export interface NamedService {
  name: string;
  names: readonly (readonly string[])[];
}

/**
 * The services named in `sequence` that the catalog has (`holds`: some tool holds all the terms of one of the
 * product's names), each once, by the name the query used.
 */
export function namedPresent(
  sequence: readonly string[],
  holds: (terms: readonly string[]) => boolean,
  services: ServiceNames = serviceNames(),
): NamedService[] {
  return namedProducts(sequence, services)
    .map(({ product, name }) => ({ name, names: services.products[product]! }))
    .filter(({ names }) => names.some(holds));
}

/**
 * A catalog's server whose name is its own: of the tools that hold the words of its name (in any field), at least
 * this share are the server's. In a catalog of MCP servers "argocd" and "pubmed" are; "time" and "memory", which
 * other tools' descriptions use, are not, and naming them says nothing about whose tool is wanted. Chosen with `npm
 * run eval` (docs/quality.md, "A named service's tools first").
 */
export const OWN_NAME_SHARE = 0.8;

/** A catalog's servers by the first term of their names: each name's terms and its number of tools. */
export type ServerNames = ReadonlyMap<string, readonly { terms: readonly string[]; tools: number }[]>;

/** The names of `servers` (each with its number of tools) under `analyze`, by first term. */
export function catalogServerNames(servers: Iterable<{ name: string; tools: number }>, analyze: Analyze): ServerNames {
  const byFirst = new Map<string, { terms: string[]; tools: number }[]>();
  for (const { name, tools } of servers) {
    const terms = analyze(name);
    if (terms.length === 0) continue;
    const list = byFirst.get(terms[0]!) ?? [];
    list.push({ terms, tools });
    byFirst.set(terms[0]!, list);
  }
  return byFirst;
}

/**
 * The catalog's servers named in `sequence` whose names are their own, each once: `holders(terms)` is how many tools
 * hold all the terms in any field (a server's tools all hold its name, in their server field), and at least `share`
 * of them must be the server's (above 1: none is). Only the names the sequence holds are weighed.
 */
export function namedServers(
  sequence: readonly string[],
  names: ServerNames,
  holders: (terms: readonly string[]) => number,
  share = OWN_NAME_SHARE,
): NamedService[] {
  const named = new Map<string, NamedService>();
  sequence.forEach((term, at) => {
    for (const { terms, tools } of names.get(term) ?? []) {
      const name = terms.join(" ");
      if (named.has(name) || !terms.every((t, i) => sequence[at + i] === t)) continue;
      const held = holders(terms);
      if (held > 0 && tools / held >= share) named.set(name, { name, names: [terms] });
    }
  });
  return [...named.values()];
}

/**
 * A tool's factor for the services a query names that the catalog has (`named`): `boost` for a tool of one of them
 * (it holds all the terms of one of its names in any field), 1 for the others or when none is named. Whether a
 * candidate holds a name is read from the bits of the query's words it holds (`wordBits`, `bitOf`: the ranker marks
 * them while scoring); a name with a word that has no bit (not among the scored words) is looked up in the postings
 * (`holders`), once.
 */
export function serviceFactor(
  named: readonly NamedService[],
  boost: number,
  bitOf: (term: string) => number,
  holders: (terms: readonly string[]) => ReadonlySet<number>,
): (internalId: number, wordBits: number) => number {
  if (named.length === 0 || boost === 1) return () => 1;
  const masks: number[] = [];
  const looked: (() => ReadonlySet<number>)[] = [];
  for (const service of named)
    for (const terms of service.names) {
      const bits = terms.map(bitOf);
      if (bits.every((b) => b !== 0)) masks.push(bits.reduce((m, b) => m | b, 0));
      else {
        let docs: ReadonlySet<number> | null = null;
        looked.push(() => (docs ??= holders(terms)));
      }
    }
  return (internalId, wordBits) =>
    masks.some((m) => (wordBits & m) === m) || looked.some((docs) => docs().has(internalId)) ? boost : 1;
}

/**
 * The services named in `sequence` that the catalog has, each with its tools: the documents (`holders`) that hold
 * all the terms of one of the product's names, in any field. "delete a slack message" asks Slack's tools; a tool that
 * deletes Discord's messages answers another request (tool-index.ts, `operationCheck`).
 */
export function presentServices(
  sequence: readonly string[],
  holders: (terms: readonly string[]) => ReadonlySet<number>,
  services: ServiceNames = serviceNames(),
): { name: string; tools: ReadonlySet<number> }[] {
  return namedProducts(sequence, services).flatMap(({ product, name }) => {
    const tools = new Set<number>();
    for (const terms of services.products[product]!) for (const doc of holders(terms)) tools.add(doc);
    return tools.size > 0 ? [{ name, tools }] : [];
  });
}
