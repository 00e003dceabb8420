/** The catalog doctor's findings (GET .../doctor): counts per code, then each finding with its reason, by code. */
import type { DoctorReport, TenantClient } from "../client/index.ts";
import { count, fmt, h, show, status, table } from "./dom.ts";
import { problem } from "./session.ts";

export async function doctorPage(root: HTMLElement, client: TenantClient): Promise<void> {
  show(root, h("h1", {}, "Catalog doctor"), status("Examining the catalog…"));
  try {
    render(root, client, await client.doctor({ limit: 500 }));
  } catch (e) {
    show(root, h("h1", {}, "Catalog doctor"), status(problem(e), "error"));
  }
}

function render(root: HTMLElement, client: TenantClient, report: DoctorReport): void {
  const codes = Object.entries(report.counts).sort((a, b) => b[1] - a[1]);
  const total = codes.reduce((n, [, c]) => n + c, 0);
  const select = h(
    "select",
    { id: "code", name: "code" },
    h("option", { value: "" }, `every code (${fmt(total)})`),
    ...codes.map(([code, n]) => h("option", { value: code }, `${code} (${fmt(n)})`)),
  );
  const out = h("div", { "aria-live": "polite" });
  const draw = (shown: DoctorReport) =>
    show(
      out,
      shown.findings.length === 0
        ? status("Nothing to report: every tool has a description, its own words and documented parameters.")
        : table(
            "Findings",
            ["severity", "code", "tool", "reason"],
            shown.findings.map((f) => [
              h("span", { class: `severity ${f.severity}` }, f.severity),
              h("code", {}, f.code),
              [h("code", {}, f.tool_id), ...(f.other ? [h("br"), "and ", h("code", {}, f.other)] : [])],
              f.message,
            ]),
          ),
      shown.more ? h("p", { class: "hint" }, `Only the first ${shown.findings.length} are listed.`) : null,
    );
  select.addEventListener("change", () => {
    const code = select.value;
    client
      .doctor({ limit: 500, ...(code ? { code: code as NonNullable<DoctorReport["findings"][number]["code"]> } : {}) })
      .then(draw, (e) => show(out, status(problem(e), "error")));
  });
  show(
    root,
    h("h1", {}, "Catalog doctor"),
    h(
      "p",
      { class: "summary" },
      `Revision ${report.revision}, ${count(report.tools, "tool")}: ${count(total, "finding")}. ` +
        `Reach checked with real searches for ${fmt(report.reach.checked)} of ${fmt(report.reach.of)} tools ` +
        `(threshold ${report.threshold}, ${report.max_results} results).`,
    ),
    h(
      "ul",
      { class: "chips", "aria-label": "Findings per code" },
      ...codes.map(([code, n]) => h("li", {}, h("code", {}, code), ` ${fmt(n)}`)),
    ),
    h("div", { class: "field" }, h("label", { for: "code" }, "Show"), select),
    out,
  );
  draw(report);
}
