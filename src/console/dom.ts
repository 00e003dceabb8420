/**
 * A few lines instead of a framework: elements built with `h`, text always set as text (never parsed as HTML, so
 * nothing a catalog or a query holds can inject markup), and inline styles only through the CSSOM (which the page's
 * Content-Security-Policy allows, unlike style attributes).
 */
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.replace(/^on/, ""), value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function show(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A width as a share (0..1) of the parent, set through the CSSOM. */
export function widthShare<T extends HTMLElement>(el: T, share: number): T {
  el.style.width = `${Math.max(0, Math.min(1, share)) * 100}%`;
  return el;
}

/** A left offset as a share (0..1) of the parent, through the CSSOM. */
export function leftShare<T extends HTMLElement>(el: T, share: number): T {
  el.style.left = `${Math.max(0, Math.min(1, share)) * 100}%`;
  return el;
}

/** A count and its noun: "1 tool", "2 tools" (the plural given when it is not the noun and an s). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${fmt(n)} ${n === 1 ? noun : plural}`;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A status line for assistive technology and sighted users alike. */
export function status(text: string, kind: "info" | "error" = "info"): HTMLElement {
  return h("p", { class: `status ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

/**
 * A data table: a caption, headers, rows of cells. Each cell carries its column's header (data-label), which narrow
 * screens show beside the value when the rows become cards (console.css).
 */
export function table(caption: string, headers: string[], rows: (Child | Child[])[][]): HTMLTableElement {
  return h(
    "table",
    { class: "data" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", { scope: "col" }, x)))),
    h(
      "tbody",
      {},
      ...rows.map((cells) =>
        h(
          "tr",
          {},
          ...cells.map((c, i) =>
            h("td", { "data-label": headers[i] ?? "" }, h("span", {}, ...(Array.isArray(c) ? c : [c]))),
          ),
        ),
      ),
    ),
  );
}
