/**
 * The ranking's choices, each with the values the evaluation tries: what the index holds of a tool (analysis,
 * phrases, enumerated values), how a query is weighted (phrases, repeats, the built-in thesaurus), BM25F's
 * parameters and server context. `npm run eval -- --loso` tunes each one without a set and measures it on that set
 * (loso.ts); docs/quality.md shows the table.
 */
import type { IndexOptions } from "../../src/search/document.ts";
import { DEFAULT_INDEX_OPTIONS } from "../../src/search/document.ts";
import { type Bm25fParams, DEFAULT_BM25F } from "../../src/search/ranker.ts";
import { DEFAULT_ANALYSIS } from "../../src/search/tokenizer.ts";
import { DEFAULT_TUNING, type Tuning } from "../../src/search/tool-index.ts";

/** One way of ranking: the index's options, the query-time tuning and BM25F's parameters. */
export interface Variant {
  label: string;
  index: IndexOptions;
  tuning: Tuning;
  params: Bm25fParams;
}

export interface Choice {
  name: string;
  /** A choice of the no-match rule, measured at the service's threshold (loso.ts `decisionScore`). */
  decision?: boolean;
  /** The value that means "without this part" (the baseline each value is compared with). */
  off: string;
  /** The value the service uses. */
  chosen: string;
  values: Variant[];
}

const base: Variant = { label: "", index: DEFAULT_INDEX_OPTIONS, tuning: DEFAULT_TUNING, params: DEFAULT_BM25F };

function variant(
  label: string,
  change: { index?: Partial<IndexOptions>; tuning?: Partial<Tuning>; params?: Partial<Bm25fParams> },
): Variant {
  return {
    label,
    index: change.index ? { ...base.index, ...change.index } : base.index,
    tuning: { ...base.tuning, ...change.tuning },
    params: { ...base.params, ...change.params },
  };
}

function fieldWeight(field: keyof Bm25fParams["fields"], weight: number): Partial<Bm25fParams> {
  return { fields: { ...DEFAULT_BM25F.fields, [field]: { ...DEFAULT_BM25F.fields[field], weight } } };
}

function choice(name: string, off: string, chosen: string, values: Variant[], decision = false): Choice {
  return { name, off, chosen, values, ...(decision ? { decision } : {}) };
}

/** The value a choice has in the service, as its label. */
const here = (value: number) => String(value);

export const CHOICES: Choice[] = [
  choice("Porter stemming", "off", "on", [
    variant("off", { index: { analysis: { ...DEFAULT_ANALYSIS, stemming: false } } }),
    variant("on", {}),
  ]),
  choice("request stop words", "off", "on", [
    variant("off", { index: { analysis: { ...DEFAULT_ANALYSIS, requestWords: false } } }),
    variant("on", {}),
  ]),
  choice("enumerated values", "off", "on", [variant("off", { index: { enumValues: false } }), variant("on", {})]),
  choice("description phrases", "off", "on", [
    variant("off", { index: { phraseTerms: 0 }, tuning: { phraseWeight: 0 } }),
    variant("on", {}),
  ]),
  choice("phrase weight", "0.2", here(DEFAULT_TUNING.phraseWeight), [
    ...[0.2, 0.4, 0.6].map((w) => variant(String(w), { tuning: { phraseWeight: w } })),
  ]),
  choice("request values", "1", here(DEFAULT_TUNING.valueWeight), [
    ...[1, 0.5, 0.25, 0].map((w) => variant(String(w), { tuning: { valueWeight: w } })),
  ]),
  choice("asides of a long message", "1", here(DEFAULT_TUNING.asideWeight), [
    ...[1, 0.75, 0.5, 0.35, 0.25].map((w) => variant(String(w), { tuning: { asideWeight: w } })),
  ]),
  choice("built-in thesaurus", "0", here(DEFAULT_TUNING.expansionWeight), [
    ...[0, 0.25, 0.5, 0.75].map((w) => variant(String(w), { tuning: { expansionWeight: w } })),
  ]),
  choice("multi-word thesaurus keys", "0.5", here(DEFAULT_TUNING.phraseKeyWeight), [
    ...[0.5, 0.75, 1].map((w) => variant(String(w), { tuning: { phraseKeyWeight: w } })),
  ]),
  choice("multi-word key slop", "0", here(DEFAULT_TUNING.keySlop), [
    ...[0, 1, 2, 3].map((n) => variant(String(n), { tuning: { keySlop: n } })),
  ]),
  choice("BM25+ delta", "0", here(DEFAULT_BM25F.delta), [
    ...[0, 0.25, 0.5, 1].map((d) => variant(String(d), { params: { delta: d } })),
  ]),
  choice("k1", "1.2", here(DEFAULT_BM25F.k1), [
    ...[1.2, 1.6, 2, 2.5].map((k) => variant(String(k), { params: { k1: k } })),
  ]),
  choice("name weight", "1", here(DEFAULT_BM25F.fields.name.weight), [
    ...[1, 2, 3, 4].map((w) => variant(String(w), { params: fieldWeight("name", w) })),
  ]),
  choice("parameter weight", "1", here(DEFAULT_BM25F.fields.params.weight), [
    ...[0.25, 0.35, 0.5, 1].map((w) => variant(String(w), { params: fieldWeight("params", w) })),
  ]),
  choice("server context", "0", here(DEFAULT_TUNING.contextWeight), [
    ...[0, 0.125, 0.25, 0.5].map((w) => variant(String(w), { tuning: { contextWeight: w } })),
  ]),
  // Decided at the threshold: which tools coverage can reach moves "no match" answers as much as the order.
  choice(
    "candidates reordered",
    "20",
    here(DEFAULT_TUNING.candidates),
    [20, 30, 50, 100].map((n) => variant(String(n), { tuning: { candidates: n } })),
    true,
  ),
  choice(
    "absent services",
    "0",
    here(DEFAULT_TUNING.absentServiceWeight),
    [0, 1, 3, 6].map((w) => variant(String(w), { tuning: { absentServiceWeight: w } })),
    true,
  ),
  choice(
    "short-query coverage",
    "off",
    DEFAULT_TUNING.coverageExponent === 0
      ? "off"
      : `${DEFAULT_TUNING.shortQueryWords}^${DEFAULT_TUNING.coverageExponent.toFixed(2)}`,
    [
      variant("off", { tuning: { coverageExponent: 0 } }),
      ...[2, 3, 4].flatMap((words) =>
        [1 / 3, 0.5, 1].map((e) =>
          variant(`${words}^${e.toFixed(2)}`, { tuning: { shortQueryWords: words, coverageExponent: e } }),
        ),
      ),
    ],
    true,
  ),
  choice(
    "messages asking only for a reply",
    "1",
    here(DEFAULT_TUNING.replyShare),
    [1, 0.5, 0.35, 0.2, 0].map((share) => variant(String(share), { tuning: { replyShare: share } })),
    true,
  ),
  choice(
    "operations the catalog lacks",
    "1",
    here(DEFAULT_TUNING.operationShare),
    [1, 0.7, 0.5, 0.35, 0.2].map((share) => variant(String(share), { tuning: { operationShare: share } })),
    true,
  ),
  choice(
    "names that say what was asked",
    "0",
    here(DEFAULT_TUNING.nameCoverage),
    [0, 0.25, 0.5, 1].map((weight) => variant(String(weight), { tuning: { nameCoverage: weight } })),
  ),
  choice(
    "a name that says more than was asked",
    "0",
    here(DEFAULT_TUNING.nameExtra),
    [0, 0.03, 0.05, 0.1, 0.2].map((weight) => variant(String(weight), { tuning: { nameExtra: weight } })),
  ),
  choice(
    "a named service's tools first",
    "1",
    here(DEFAULT_TUNING.serviceBoost),
    [1, 1.25, 1.43, 1.67, 2, 2.5, 3.33].map((boost) => variant(String(boost), { tuning: { serviceBoost: boost } })),
  ),
  choice("a server named by its own name", "off", here(DEFAULT_TUNING.ownNameShare), [
    variant("off", { tuning: { ownNameShare: 2 } }),
    ...[0.5, 0.65, 0.8, 0.95].map((share) => variant(String(share), { tuning: { ownNameShare: share } })),
  ]),
  choice(
    "operations on a named service",
    "off",
    DEFAULT_TUNING.operationService ? "on" : "off",
    [variant("off", { tuning: { operationService: false } }), variant("on", { tuning: { operationService: true } })],
    true,
  ),
  choice(
    "built-in expansions in short queries (factor)",
    "1",
    here(DEFAULT_TUNING.shortExpansionFactor),
    [1, 1.15, 1.3, 1.45].map((f) => variant(String(f), { tuning: { shortExpansionFactor: f } })),
    true,
  ),
  choice(
    "words of a multi-word key (share)",
    "1",
    here(DEFAULT_TUNING.keyWordShare),
    [1, 0.85, 0.75, 0.5].map((share) => variant(String(share), { tuning: { keyWordShare: share } })),
    true,
  ),
  choice(
    "compounds the catalog writes as one",
    "0",
    here(DEFAULT_TUNING.compoundWeight),
    [0, 0.5, 0.75, 1].map((weight) => variant(String(weight), { tuning: { compoundWeight: weight } })),
  ),
  choice(
    "a name's verb against the request's",
    "1",
    here(DEFAULT_TUNING.verbBoost),
    [1, 1.11, 1.25, 1.43, 1.67].map((boost) => variant(String(boost), { tuning: { verbBoost: boost } })),
  ),
  choice(
    "operation words used as nouns or states",
    "off",
    DEFAULT_TUNING.operationNouns ? "on" : "off",
    [variant("off", { tuning: { operationNouns: false } }), variant("on", { tuning: { operationNouns: true } })],
    true,
  ),
  choice(
    "abbreviations in short queries (weight)",
    "0.65",
    here(DEFAULT_TUNING.abbreviationWeight),
    [0.65, 0.75, 0.85, 0.9, 0.95].map((w) => variant(String(w), { tuning: { abbreviationWeight: w } })),
    true,
  ),
  choice(
    "built-in keys whose words no tool holds (factor)",
    "1",
    here(DEFAULT_TUNING.unknownKeyFactor),
    [1, 1.15, 1.3, 1.6, 2, 3].map((f) => variant(String(f), { tuning: { unknownKeyFactor: f } })),
    true,
  ),
  choice(
    "a short query's words only synonyms reach (share)",
    "0",
    here(DEFAULT_TUNING.synonymOnlyShare),
    [0, 0.5, 0.75, 1].map((share) => variant(String(share), { tuning: { synonymOnlyShare: share } })),
    true,
  ),
];
