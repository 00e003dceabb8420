/**
 * The catalog: its servers and tools with a filter, the token cost per server (always-loaded and deferred parts), each
 * tool's defer status (always loaded or reached through search), and the plan for a chosen context window as a chart.
 */
import type { Catalog, Plan, TenantClient, ToolSummary } from "../client/index.ts";
import { barChart } from "./charts.ts";
import { count, fmt, h, show, status, table } from "./dom.ts";
import { problem } from "./session.ts";

/** Servers drawn one by one in the cost chart; the rest are summed as one bar. */
const SERVERS_DRAWN = 15;
/** Tools listed at once under the filter. */
const TOOLS_SHOWN = 200;
/** Tools read for the filter (pages of 500): a large catalog is filtered within its first ones, as the page says. */
const TOOLS_LOADED = 5_000;

export async function catalogPage(root: HTMLElement, client: TenantClient): Promise<void> {
  show(root, h("h1", {}, "Catalog"), status("Loading the catalog…"));
  try {
    const [catalog, tools, deferred] = await Promise.all([client.catalog(), allTools(client), deferredIds(client)]);
    const plan = h("section", { "aria-label": "Plan" });
    show(
      root,
      h("h1", {}, "Catalog"),
      h(
        "p",
        { class: "summary" },
        `Revision ${catalog.revision}: ${count(catalog.tools, "tool")} ` +
          `on ${count(catalog.servers.length, "server")}, ` +
          `${fmt(catalog.always_loaded)} always loaded, ${fmt(catalog.deferred)} deferred; ` +
          `${fmt(catalog.tokens.catalog)} tokens of definitions (${catalog.tokens.tokenizer}).`,
      ),
      costChart(catalog),
      plan,
      toolList(catalog, tools, deferred),
    );
    planSection(plan, client);
  } catch (e) {
    show(root, h("h1", {}, "Catalog"), status(problem(e), "error"));
  }
}

async function allTools(client: TenantClient): Promise<ToolSummary[]> {
  const out: ToolSummary[] = [];
  for await (const tool of client.tools.all({ limit: 500 })) {
    out.push(tool);
    if (out.length >= TOOLS_LOADED) break;
  }
  return out;
}

async function deferredIds(client: TenantClient): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.deferredList({ limit: 10_000, ...(cursor ? { cursor } : {}) });
    for (const line of page.tools) ids.add(line.tool_id);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

function costChart(catalog: Catalog): HTMLElement {
  const servers = [...catalog.servers].sort((a, b) => b.tokens.definitions - a.tokens.definitions);
  // One bar per server, or the first ones and the rest summed, when there are more than one of those.
  const drawn = servers.length > SERVERS_DRAWN + 1 ? servers.slice(0, SERVERS_DRAWN) : servers;
  const rest = servers.slice(drawn.length);
  const labels = [...drawn.map((s) => s.name), ...(rest.length ? [`${rest.length} others`] : [])];
  const sum = (list: typeof servers, f: (s: (typeof servers)[number]) => number) => list.reduce((n, s) => n + f(s), 0);
  const always = [
    ...drawn.map((s) => s.tokens.always_loaded),
    ...(rest.length ? [sum(rest, (s) => s.tokens.always_loaded)] : []),
  ];
  const deferred = [
    ...drawn.map((s) => s.tokens.definitions - s.tokens.always_loaded),
    ...(rest.length ? [sum(rest, (s) => s.tokens.definitions - s.tokens.always_loaded)] : []),
  ];
  const top = drawn[0];
  return barChart(
    "Token cost per server",
    labels,
    [
      { label: "always loaded", values: always, color: "--chart-2" },
      { label: "deferred", values: deferred, color: "--chart-1" },
    ],
    {
      stacked: true,
      unit: " tokens",
      summary: top
        ? `Token cost per server; the most costly is ${top.name} with ${fmt(top.tokens.definitions)} tokens.`
        : "No servers yet.",
    },
  );
}

function planSection(root: HTMLElement, client: TenantClient): void {
  const input = h("input", {
    id: "context_window",
    name: "context_window",
    type: "number",
    min: "1000",
    step: "1000",
    value: "200000",
  });
  const out = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "inline-form" },
    h("div", { class: "field" }, h("label", { for: "context_window" }, "Context window (tokens)"), input),
    h("button", { type: "submit" }, "Plan"),
  );
  const run = () => {
    show(out, status("Planning…"));
    client.plan({ context_window: Number(input.value) }).then(
      (plan) => show(out, planChart(plan)),
      (e) => show(out, status(problem(e), "error")),
    );
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  });
  show(root, h("h2", {}, "Plan: is tool search worth it?"), form, out);
  run();
}

function planChart(plan: Plan): HTMLElement {
  const t = plan.tokens;
  return h(
    "div",
    {},
    h(
      "p",
      { class: `decision ${plan.enabled ? "on" : "off"}` },
      h("strong", {}, plan.enabled ? "Search on. " : "Search off. "),
      plan.message,
    ),
    barChart(
      `Tokens in every request, context window ${fmt(plan.context_window)}`,
      ["without tool search", "with tool search"],
      [
        { label: "always-loaded definitions", values: [t.always_loaded, t.always_loaded], color: "--chart-2" },
        { label: "deferred definitions", values: [t.deferred_definitions, 0], color: "--chart-1" },
        { label: "tool_search + deferred list", values: [0, t.tool_search + t.deferred_list], color: "--chart-3" },
      ],
      {
        stacked: true,
        unit: " tokens",
        height: 220,
        summary: `Without search ${fmt(t.catalog)} tokens, with search ${fmt(t.with_search)}; saving ${fmt(t.saving)}.`,
      },
    ),
  );
}

function toolList(catalog: Catalog, tools: ToolSummary[], deferred: Set<string>): HTMLElement {
  const filter = h("input", {
    id: "filter",
    name: "filter",
    type: "search",
    autocomplete: "off",
    placeholder: "name, server or words",
  });
  const out = h("div", { "aria-live": "polite" });
  const servers = new Map(catalog.servers.map((s) => [s.name, s]));
  const draw = () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const matching = tools.filter((t) => {
      const text = `${t.tool_id} ${t.title ?? ""} ${t.description}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
    show(
      out,
      h(
        "p",
        { class: "summary" },
        `${fmt(matching.length)} of ${count(tools.length, "tool")}` +
          (catalog.tools > tools.length ? ` (the first ${fmt(tools.length)} of ${fmt(catalog.tools)} by id)` : "") +
          (matching.length > TOOLS_SHOWN ? `; the first ${TOOLS_SHOWN} are listed.` : "."),
      ),
      table(
        "Tools",
        ["tool", "status", "defer (tool / server)", "description"],
        matching
          .slice(0, TOOLS_SHOWN)
          .map((t) => [
            h("code", {}, t.tool_id),
            deferred.has(t.tool_id) ? "deferred" : h("strong", {}, "always loaded"),
            `${t.defer ?? "inherit"} / ${servers.get(t.server)?.defer_tools ?? "auto"}`,
            t.description,
          ]),
      ),
    );
  };
  filter.addEventListener("input", draw);
  draw();
  return h(
    "section",
    { class: "tools", "aria-label": "Tools" },
    h("h2", {}, "Servers and tools"),
    h("div", { class: "field" }, h("label", { for: "filter" }, "Filter tools"), filter),
    out,
  );
}
