/**
 * The search playground: a query, the threshold and max results; the results as the API returns them, each with its
 * score against the threshold, its match kind and the explanation of its score as parts per field; the no-match
 * message; and the same answer in each output format, one click away.
 */
import type { SearchResponse, SearchResult, TenantClient } from "../client/index.ts";
import { fmt, h, leftShare, show, status, table, widthShare } from "./dom.ts";
import { problem } from "./session.ts";

type Explain = NonNullable<SearchResult["explain"]>;

const FORMATS = [
  ["mcp", "MCP"],
  ["anthropic", "Anthropic"],
  ["openai", "OpenAI"],
  ["openai-responses", "Responses"],
] as const;
type Format = (typeof FORMATS)[number][0];

/** Parts of a score, in the order they are drawn, with their colour variables. */
const PARTS = [
  ["name", "name", "--part-name"],
  ["description", "description", "--part-description"],
  ["params", "params", "--part-params"],
  ["keywords", "keywords", "--part-keywords"],
  ["server", "server", "--part-server"],
  ["synonyms", "synonyms", "--part-synonyms"],
  ["usage", "usage (learned)", "--part-usage"],
  ["context", "server context", "--part-context"],
] as const;

export function playground(root: HTMLElement, client: TenantClient): void {
  const query = h("input", { id: "query", name: "query", type: "search", required: true, autocomplete: "off" });
  const threshold = h("input", {
    id: "threshold",
    name: "threshold",
    type: "number",
    step: "0.1",
    min: "0",
    max: "100",
    placeholder: "default",
  });
  const maxResults = h("input", {
    id: "max_results",
    name: "max_results",
    type: "number",
    min: "1",
    max: "50",
    placeholder: "default",
  });
  const results = h("section", { class: "results", "aria-live": "polite", "aria-label": "Results" });
  const form = h(
    "form",
    { class: "search-form", role: "search" },
    h("div", { class: "field grow" }, h("label", { for: "query" }, "Query"), query),
    h("div", { class: "field" }, h("label", { for: "threshold" }, "Threshold"), threshold),
    h("div", { class: "field" }, h("label", { for: "max_results" }, "Max results"), maxResults),
    h("button", { type: "submit" }, "Search"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const request = {
      query: query.value,
      ...(threshold.value === "" ? {} : { threshold: Number(threshold.value) }),
      ...(maxResults.value === "" ? {} : { max_results: Number(maxResults.value) }),
    };
    show(results, status("Searching…"));
    // One search answers the rows, their explanations and the MCP view; each other format is one more search.
    client.search({ ...request, explain: true, format: "mcp" }).then(
      (answer) => render(results, answer, (format) => client.search({ ...request, format })),
      (e) => show(results, status(problem(e), "error")),
    );
  });
  show(
    root,
    h("h1", {}, "Search playground"),
    h(
      "p",
      { class: "hint" },
      "Searches here are real searches of this tenant: they are answered, and logged, like an agent's.",
    ),
    form,
    results,
  );
  query.focus();
}

function render(
  root: HTMLElement,
  answer: SearchResponse,
  inFormat: (format: Format) => Promise<SearchResponse>,
): void {
  const scale = Math.max(answer.threshold, ...answer.results.map((r) => r.score ?? 0)) * 1.15 || 1;
  const head =
    answer.results.length === 0
      ? h("div", { class: "no-match", role: "status" }, h("strong", {}, "No match. "), answer.message ?? "")
      : h(
          "p",
          { class: "summary" },
          `${answer.results.length} tool${answer.results.length === 1 ? "" : "s"} at threshold ${answer.threshold} ` +
            "(the red line across each score bar).",
        );
  const list = h("ol", { class: "result-list" }, ...answer.results.map((r) => row(r, answer.threshold, scale)));
  const output = h("pre", { class: "answer", tabindex: "0", "aria-label": "The answer as JSON" });
  const buttons = FORMATS.map(([format, label]) =>
    h("button", { type: "button", class: "tab", "data-format": format, "aria-pressed": "false" }, label),
  );
  // The MCP answer is this one, as the API gives it without `explain`.
  const cache = new Map<Format, Promise<SearchResponse>>([
    ["mcp", Promise.resolve({ ...answer, results: answer.results.map(({ explain: _, ...r }) => r) })],
  ]);
  const choose = (format: Format) => {
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.format === format));
    if (!cache.has(format)) cache.set(format, inFormat(format));
    output.textContent = "Loading…";
    cache.get(format)!.then(
      (a) => {
        output.textContent = JSON.stringify(a, null, 2);
      },
      (e) => {
        output.textContent = problem(e);
      },
    );
  };
  for (const b of buttons) b.addEventListener("click", () => choose(b.dataset.format as Format));
  show(
    root,
    head,
    list,
    h(
      "section",
      { class: "formats", "aria-label": "The answer in each output format" },
      h("h2", {}, "The answer"),
      h("div", { class: "tabs", role: "group", "aria-label": "Output format" }, ...buttons),
      output,
    ),
  );
  choose("mcp");
}

function row(result: SearchResult, threshold: number, scale: number): HTMLElement {
  const score = result.score ?? 0;
  const bar = h(
    "div",
    { class: "score-bar", role: "img", "aria-label": `score ${fmt(score, 2)}, threshold ${threshold}` },
    widthShare(h("div", { class: `fill ${score >= threshold ? "over" : "under"}` }), score / scale),
    leftShare(h("div", { class: "threshold-line", title: `threshold ${threshold}` }), threshold / scale),
  );
  return h(
    "li",
    { class: "result", "data-tool-id": result.tool_id },
    h(
      "div",
      { class: "result-head" },
      h("code", { class: "tool-id" }, result.tool_id),
      h("span", { class: `match match-${result.match}`, title: "match kind" }, result.match),
      h("span", { class: "score" }, fmt(score, 4)),
    ),
    bar,
    h("p", { class: "description" }, result.description),
    result.explain ? explain(result.explain, scale) : null,
  );
}

/** The factors that multiply a tool's term parts (explain.*), with what each says, in the API's order. */
const FACTORS = [
  ["coverage", "the share of a short query's words the tool explains"],
  ["naming", "its name says the query's words"],
  ["verb", "its name does not do another kind of thing than the query's opening verb asks"],
  ["service", "it is a tool of a service the query names"],
] as const;

/**
 * The explanation: a stacked bar of the score's parts on the same scale as the score bar, and the terms. Each term's
 * part comes split across its fields by the API (`parts`); a term a synonym added counts as "synonyms" whatever field
 * holds it; the server context is its own part. As in the score, the term parts are multiplied by the factors
 * (coverage, naming, verb, service) and everything by the absent-service factor, so the bar adds up to the score.
 */
function explain(e: Explain, scale: number): HTMLElement {
  const parts = new Map<string, number>();
  const add = (part: string, value: number) => parts.set(part, (parts.get(part) ?? 0) + value);
  for (const term of e.terms) {
    if (term.via) add("synonyms", term.score);
    else for (const [field, value] of Object.entries(term.parts)) add(field, value);
  }
  if (e.context) add("context", e.context.score);
  const factor = e.absent?.factor ?? 1;
  const factors = FACTORS.flatMap(([label, meaning]) =>
    e[label] !== undefined ? [{ label, meaning, value: e[label] }] : [],
  );
  const ranking = factors.reduce((product, f) => product * f.value, 1);
  const known = new Set<string>(PARTS.map(([k]) => k));
  const drawn = [
    ...PARTS,
    ...[...parts.keys()].filter((k) => !known.has(k)).map((k) => [k, k, "--part-other"] as const),
  ];
  const segments = drawn.filter(([key]) => (parts.get(key) ?? 0) > 0);
  const value = (key: string) => parts.get(key)! * (key === "context" ? 1 : ranking) * factor;
  const stacked = h(
    "div",
    {
      class: "stacked-bar",
      role: "img",
      "aria-label": `Score parts: ${segments.map(([k, l]) => `${l} ${fmt(value(k), 3)}`).join(", ")}`,
    },
    ...segments.map(([key, label, color]) => {
      const seg = widthShare(
        h("div", { class: "segment", title: `${label}: ${fmt(value(key), 4)}` }),
        value(key) / scale,
      );
      seg.style.background = `var(${color})`;
      return seg;
    }),
  );
  const legend = h(
    "ul",
    { class: "legend" },
    ...segments.map(([key, label, color]) => {
      const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = `var(${color})`;
      return h("li", {}, swatch, `${label} ${fmt(value(key), 3)}`);
    }),
  );
  const terms = table(
    "Matched terms",
    ["term", "via", "weight", "idf", "occurrences per field", "part"],
    e.terms.map((t) => [
      h("code", {}, t.term),
      t.via ?? "",
      fmt(t.weight, 2),
      fmt(t.idf, 2),
      Object.entries(t.tf)
        // Occurrences are whole; a learned usage tf is not.
        .map(([f, n]) => `${f} ${fmt(Number(n), Number.isInteger(n) ? 0 : 2)}`)
        .join(", "),
      fmt(t.score, 4),
    ]),
  );
  return h(
    "details",
    { class: "explain" },
    h("summary", {}, "Explain"),
    stacked,
    legend,
    e.absent
      ? h(
          "p",
          { class: "absent" },
          `The query names ${e.absent.services.join(", ")}, which no tool mentions: the score is scaled by ` +
            `${fmt(e.absent.factor, 3)} (absent factor).`,
        )
      : null,
    e.context ? h("p", {}, `Server context from ${e.context.from}: +${fmt(e.context.score, 4)}.`) : null,
    factors.length > 0
      ? h(
          "p",
          { class: "factors" },
          `Term parts multiplied by ${factors.map((f) => `${f.label} ${fmt(f.value, 3)}`).join(", ")} (` +
            `${factors.map((f) => `${f.label}: ${f.meaning}`).join("; ")}).`,
        )
      : null,
    e.gate !== undefined
      ? h(
          "p",
          { class: "gate" },
          `Counted as ${fmt(e.gate, 4)} against the threshold: the no-match decision weighs the tool without the ` +
            "factors that only rank (naming, verb, service), and less when it lacks a short query's operation or " +
            "the service it names, or when a message asks only for a reply.",
        )
      : null,
    h(
      "p",
      { class: "hint" },
      `Parts in score units (evidence / ${fmt(e.unit, 2)}). A term's part is split across the fields that hold it ` +
        "by their share of its weighted count; usage is what the tool learned from sessions that used it.",
    ),
    terms,
  );
}
