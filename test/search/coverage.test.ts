/**
 * A short query must be explained: its score is multiplied by coverage^(1/3), the share of its words' information a
 * tool holds. A word the catalog lacks counts too when the thesaurus reaches it: only its synonyms can explain it.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_TUNING, ToolIndex } from "../../src/search/tool-index.ts";
import { tool } from "./fixtures.ts";

const billing = [
  tool("billing", "refund_payment", "Refund a payment fully or partially"),
  tool("billing", "list_subscriptions", "List a customer's subscriptions with plan and status"),
  tool("billing", "create_invoice", "Create and send an invoice to a customer"),
  tool("billing", "get_balance", "Get the current account balance"),
];
// "money back" -> refund (the thesaurus's commerce rules); the catalog holds neither "money" nor "back".
const QUERY = "give the customer their money back";
const without = { ...DEFAULT_TUNING, synonymOnlyShare: 0 };

describe("short-query coverage", () => {
  const index = ToolIndex.fromTools(billing);

  it("counts a word the catalog lacks through its synonyms, so the tool they reach ranks first", () => {
    const hits = index.answer(QUERY, { limit: 4, threshold: 0, explain: true }).hits;
    expect(hits[0]!.id).toBe("billing::refund_payment");
    expect(hits[0]!.explain!.terms.map((t) => t.term)).toEqual(["refund"]);
    // "customer" is the query's one known word; "money" and "back" each weigh the idf of their synonym `refund`,
    // which the refund tool holds: it explains two of the three words.
    const customer = index.answer("customer", { limit: 1, threshold: 0, explain: true }).hits[0]!.explain!.terms[0]!;
    const refund = hits[0]!.explain!.terms[0]!;
    const total = customer.idf + 2 * refund.idf;
    expect(hits[0]!.explain!.coverage).toBeCloseTo(((2 * refund.idf) / total) ** (1 / 3), 9);
    // The tools that hold "customer" alone leave "money back" unexplained.
    const subscriptions = hits.find((h) => h.id === "billing::list_subscriptions")!;
    expect(subscriptions.explain!.coverage).toBeCloseTo((customer.idf / total) ** (1 / 3), 9);
  });

  it("left out, a tool found only through such a word covered nothing and scored 0", () => {
    const hits = index.answer(QUERY, { limit: 4, threshold: 0, explain: true, tuning: without }).hits;
    expect(["billing::create_invoice", "billing::list_subscriptions"]).toContain(hits[0]!.id);
    expect(hits.find((h) => h.id === "billing::refund_payment")?.score ?? 0).toBe(0);
  });

  it("counts nothing for a word neither the catalog nor a synonym reaches", () => {
    // "ledger" has no rule reaching this catalog: "balance ledger" is explained by get_balance as "balance" alone is.
    const alone = index.answer("balance", { limit: 1, threshold: 0, explain: true }).hits[0]!;
    const withWord = index.answer("balance ledger", { limit: 1, threshold: 0, explain: true }).hits[0]!;
    expect(withWord.id).toBe("billing::get_balance");
    expect(withWord.explain!.coverage ?? 1).toBe(alone.explain!.coverage ?? 1);
    expect(withWord.score).toBeCloseTo(alone.score, 9);
  });

  it("changes nothing for a query of more than 3 known words, whose coverage is not applied", () => {
    const request = "give the customer their money back, cancel the subscription plan and send an invoice";
    const a = index.answer(request, { limit: 4, threshold: 0 }).hits;
    const b = index.answer(request, { limit: 4, threshold: 0, tuning: without }).hits;
    expect(a.map((h) => [h.id, h.score])).toEqual(b.map((h) => [h.id, h.score]));
  });
});
