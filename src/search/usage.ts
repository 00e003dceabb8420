/**
 * The `usage` field of the index: what tools learned from use (learning.ts), held beside the postings of their text.
 *
 * Learned terms change with every credit, and decay with time, while a tool's text changes only when it is uploaded.
 * Packing them into the text's postings would mean re-indexing a tool (and merging the whole frozen segment) on every
 * credit; this small side index takes a credit in O(terms of the tool). The ranker reads both for each query term and
 * adds the usage term frequency to the text's weighted one before saturation (BM25F: one field among the others).
 *
 * Per tool (by internal id): the day of its last credit and its terms' weights as of that day. The weights are the
 * tenant's stored rows exactly (SQLite is the source of truth); decay to the search's day happens when a term is
 * looked up, so the field is the same whether it was restored from a snapshot, rebuilt from rows or built credit by
 * credit.
 */
import { decayed, usageTf, type LearnedTerm } from "./learning.ts";

/** The tools holding a term in their usage field and its term frequency in each. */
export interface UsagePostings {
  docs: number[];
  tfs: number[];
}

/** A tool's learned terms as stored: the day of its last credit and each term's weight on that day. */
export interface LearnedTool {
  day: number;
  terms: LearnedTerm[];
}

/** The usage field's state as a snapshot keeps it. */
export interface SavedUsage {
  /** The learned-state version (the tenant's counter) the field reflects. */
  version: number;
  /** [internal id, day, term, weight, term, weight, ...] per tool. */
  tools: (string | number)[][];
}

/** A tool's entry, compact: its terms and their weights in parallel arrays (a saturated tool holds TOOL_TERMS). */
interface Entry {
  day: number;
  terms: string[];
  weights: Float64Array;
}

export class UsageField {
  private readonly tools = new Map<number, Entry>();
  private readonly byTerm = new Map<string, number[]>();
  /** The learned-state version this field reflects (see SavedUsage); the owner sets it. */
  version = 0;

  get size(): number {
    return this.tools.size;
  }

  /** Replaces what one tool learned (an empty list forgets it). */
  set(doc: number, learned: LearnedTool): void {
    this.drop(doc);
    if (learned.terms.length === 0) return;
    const terms = learned.terms.map((t) => t.term);
    this.tools.set(doc, { day: learned.day, terms, weights: Float64Array.from(learned.terms, (t) => t.weight) });
    for (const term of terms) {
      const docs = this.byTerm.get(term);
      if (docs) docs.push(doc);
      else this.byTerm.set(term, [doc]);
    }
  }

  /** Forgets what one tool learned. */
  drop(doc: number): void {
    const entry = this.tools.get(doc);
    if (!entry) return;
    this.tools.delete(doc);
    for (const term of entry.terms) {
      const docs = this.byTerm.get(term)!;
      docs.splice(docs.indexOf(doc), 1);
      if (docs.length === 0) this.byTerm.delete(term);
    }
  }

  /**
   * The tools whose usage field holds `term` on `day`, with its term frequency (decayed weight through `usageTf`);
   * undefined when none does. Tools ascending by internal id, so that scores never depend on the order of credits.
   */
  postings(term: string, day: number, halfLifeDays: number): UsagePostings | undefined {
    const holders = this.byTerm.get(term);
    if (!holders) return undefined;
    const docs: number[] = [];
    const tfs: number[] = [];
    for (const doc of [...holders].sort((a, b) => a - b)) {
      const entry = this.tools.get(doc)!;
      const weight = entry.weights[entry.terms.indexOf(term)]!;
      const tf = usageTf(decayed(weight, entry.day, day, halfLifeDays));
      if (tf > 0) {
        docs.push(doc);
        tfs.push(tf);
      }
    }
    return docs.length > 0 ? { docs, tfs } : undefined;
  }

  save(): SavedUsage {
    return {
      version: this.version,
      tools: [...this.tools]
        .sort(([a], [b]) => a - b)
        .map(([doc, e]) => [doc, e.day, ...e.terms.flatMap((term, i) => [term, e.weights[i]!])]),
    };
  }

  static load(saved: SavedUsage, slots: number): UsageField {
    const field = new UsageField();
    for (const entry of saved.tools) {
      const [doc, day] = entry;
      if (!Number.isInteger(doc) || (doc as number) < 1 || (doc as number) > slots || !Number.isInteger(day))
        throw new Error("usage entry names no document");
      const terms: LearnedTerm[] = [];
      for (let i = 2; i + 1 < entry.length; i += 2) {
        const term = entry[i];
        const weight = entry[i + 1];
        if (typeof term !== "string" || typeof weight !== "number") throw new Error("usage entry unreadable");
        terms.push({ term, weight });
      }
      field.set(doc as number, { day: day as number, terms });
    }
    field.version = saved.version;
    return field;
  }
}
