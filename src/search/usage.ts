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

/**
 * A tool's entry, compact: its words as ids into the field's word table and their weights, in parallel typed arrays.
 * A tool at its TOOL_TERMS cap takes about 1.5 KB, each word's string once per field however many tools hold it.
 * Ids of words no tool holds any more stay until the field is reloaded (the alarm's pruning, a reset).
 */
interface Entry {
  day: number;
  words: Int32Array;
  weights: Float64Array;
}

export class UsageField {
  private readonly tools = new Map<number, Entry>();
  /** Word -> id; by id, the word and the tools (internal ids) whose usage holds it. */
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];
  private readonly holders: number[][] = [];
  /** The learned-state version this field reflects (see SavedUsage); the owner sets it. */
  version = 0;

  get size(): number {
    return this.tools.size;
  }

  /** Replaces what one tool learned (an empty list forgets it). */
  set(doc: number, learned: LearnedTool): void {
    this.drop(doc);
    if (learned.terms.length === 0) return;
    const words = Int32Array.from(learned.terms, (t) => this.wordId(t.term));
    this.tools.set(doc, { day: learned.day, words, weights: Float64Array.from(learned.terms, (t) => t.weight) });
    for (const id of words) this.holders[id]!.push(doc);
  }

  /** Forgets what one tool learned. */
  drop(doc: number): void {
    const entry = this.tools.get(doc);
    if (!entry) return;
    this.tools.delete(doc);
    for (const id of entry.words) {
      const docs = this.holders[id]!;
      docs.splice(docs.indexOf(doc), 1);
    }
  }

  private wordId(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.ids.set(word, id);
      this.words.push(word);
      this.holders.push([]);
    }
    return id;
  }

  /**
   * The tools whose usage field holds `term` on `day`, with its term frequency (decayed weight through `usageTf`);
   * undefined when none does. Tools ascending by internal id, so that scores never depend on the order of credits.
   */
  postings(term: string, day: number, halfLifeDays: number): UsagePostings | undefined {
    const id = this.ids.get(term);
    const holders = id === undefined ? undefined : this.holders[id]!;
    if (!holders || holders.length === 0) return undefined;
    const docs: number[] = [];
    const tfs: number[] = [];
    for (const doc of [...holders].sort((a, b) => a - b)) {
      const entry = this.tools.get(doc)!;
      const weight = entry.weights[entry.words.indexOf(id!)]!;
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
        .map(([doc, e]) => [doc, e.day, ...[...e.words].flatMap((id, i) => [this.words[id]!, e.weights[i]!])]),
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
