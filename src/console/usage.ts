/**
 * Usage (GET .../usage): searches per day with the share that matched nothing, budget refusals per day, the queries
 * that most often matched nothing (the ones to fix with keywords or synonyms), the tools nothing returned, and what
 * learning from use has added (with the words each tool learned, from GET .../learned, when the key may read them).
 */
import { ToolSearchError, type TenantClient, type Usage } from "../client/index.ts";
import { barChart } from "./charts.ts";
import { count, fmt, h, show, status, table } from "./dom.ts";
import { problem } from "./session.ts";

export function usagePage(root: HTMLElement, client: TenantClient): void {
  const from = h("input", { id: "from", name: "from", type: "date" });
  const to = h("input", { id: "to", name: "to", type: "date" });
  const out = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "inline-form" },
    h("div", { class: "field" }, h("label", { for: "from" }, "From (UTC)"), from),
    h("div", { class: "field" }, h("label", { for: "to" }, "To (UTC)"), to),
    h("button", { type: "submit" }, "Show"),
  );
  const load = () => {
    show(out, status("Loading usage…"));
    client.usage({ ...(from.value ? { from: from.value } : {}), ...(to.value ? { to: to.value } : {}), top: 20 }).then(
      (usage) => {
        from.value = usage.from;
        to.value = usage.to;
        render(out, usage, client);
      },
      (e) => show(out, status(problem(e), "error")),
    );
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  show(root, h("h1", {}, "Usage"), form, out);
  load();
}

function render(root: HTMLElement, usage: Usage, client: TenantClient): void {
  const days = usage.days.map((d) => d.day.slice(5));
  const t = usage.totals;
  show(
    root,
    h(
      "p",
      { class: "summary" },
      `${usage.from} to ${usage.to}: ${count(t.searches, "search", "searches")}, ${fmt(t.no_match)} with no match ` +
        `(${fmt(t.no_match_share * 100, 1)} %), ${count(t.lookups, "tool_id lookup")}, ${fmt(t.budget_exhausted)} ` +
        `refused for a spent budget. Kept for ${usage.retention_days} days.`,
    ),
    barChart(
      "Searches per day, and the share with no match",
      days,
      [
        { label: "searches", values: usage.days.map((d) => d.searches), color: "--chart-1" },
        {
          label: "no match",
          // A day without searches has no share: a gap, not 0 %.
          values: usage.days.map((d) => (d.searches === 0 ? null : d.no_match_share)),
          color: "--chart-4",
          share: true,
        },
      ],
      {
        summary:
          `${fmt(t.searches)} searches over ${days.length} days, ` +
          `${fmt(t.no_match_share * 100, 1)} % with no match.`,
      },
    ),
    barChart(
      "Searches refused for a spent budget, per day",
      days,
      [{ label: "budget exhausted", values: usage.days.map((d) => d.budget_exhausted), color: "--chart-3" }],
      { height: 180, summary: `${fmt(t.budget_exhausted)} searches refused for a spent budget.` },
    ),
    h("h2", {}, "Queries with no match"),
    !usage.log_queries
      ? status("Query texts are not kept for this tenant (setting log_queries is off): only counts.")
      : usage.top_no_match.length === 0
        ? status("No query went without a match.")
        : table(
            "The queries that most often matched nothing: add keywords or synonyms for them",
            ["query", "times", "last"],
            usage.top_no_match.map((q) => [
              [h("code", {}, q.query), q.chars > q.query.length ? ` … (${fmt(q.chars)} characters)` : ""],
              fmt(q.count),
              q.last_at.replace("T", " ").slice(0, 16),
            ]),
          ),
    h("h2", {}, "Tools never returned"),
    h(
      "p",
      { class: "summary" },
      `${count(usage.never_returned.count, "tool was", "tools were")} returned by no search or lookup in this range.`,
    ),
    usage.never_returned.tools.length
      ? h("ul", { class: "tool-list" }, ...usage.never_returned.tools.map((id) => h("li", {}, h("code", {}, id))))
      : null,
    learning(usage.learning, client),
  );
}

/**
 * What learning from use has added: counts, the most credited tools, and the words they learned. The words come from
 * GET .../learned, which takes an admin key; with a search key the page says so and shows the rest.
 */
function learning(learned: Usage["learning"], client: TenantClient): HTMLElement {
  const words = h("div", { "aria-live": "polite" });
  const section = h(
    "section",
    { class: "learning", "aria-labelledby": "learning-h" },
    h("h2", { id: "learning-h" }, "What learning from use has added"),
    h(
      "p",
      { class: "summary" },
      learned.tools === 0
        ? `Nothing yet. ${learned.learn_from_use ? "Learning is on: " : "Learning is off; when on, "}` +
            "the words of a session's searches are credited to the tool the session then uses, and searched as " +
            "that tool's usage field."
        : `${count(learned.tools, "tool")} learned ${count(learned.terms, "word")} ` +
            `from ${count(learned.credits, "credit")} ` +
            `(sessions that used them after searching). Learning is ${learned.learn_from_use ? "on" : "off"}.`,
    ),
    words,
  );
  if (learned.most_credited.length === 0) return section;
  const rows = (terms: Map<string, string>) =>
    learned.most_credited.map((t) => [
      h("code", {}, t.tool_id),
      fmt(t.credits),
      t.last_credit_at.replace("T", " ").slice(0, 16),
      terms.get(t.tool_id) ?? "",
    ]);
  const draw = (terms: Map<string, string>, note?: string) =>
    show(
      words,
      table(
        "The most credited tools",
        ["tool", "credits", "last credit", "words learned (strongest first)"],
        rows(terms),
      ),
      note ? h("p", { class: "hint" }, note) : null,
    );
  draw(new Map());
  learnedTerms(
    client,
    learned.most_credited.map((t) => t.tool_id),
  ).then(
    (terms) => draw(terms),
    (e) =>
      draw(
        new Map(),
        e instanceof ToolSearchError && e.status === 403
          ? "The words each tool learned are shown to admin keys (GET .../learned)."
          : `The words each tool learned could not be read: ${problem(e)}`,
      ),
  );
  return section;
}

/** The learned words of these tools, as "word, word, ..." by tool id (GET .../learned?tool_id=, one per tool). */
async function learnedTerms(client: TenantClient, ids: string[]): Promise<Map<string, string>> {
  const tools = await Promise.all(ids.map((id) => client.learned.tool(id)));
  return new Map(tools.map((t) => [t.tool_id, t.terms.map((term) => term.term).join(", ")]));
}
