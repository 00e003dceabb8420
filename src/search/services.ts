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
