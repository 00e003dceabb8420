/**
 * The API reference on /docs: renders the service's own /openapi.json in the page, with nothing from another host (no
 * CDN, fonts or telemetry), so it works offline and under the same strict Content-Security-Policy as the console.
 * Operations grouped by tag in a filterable index; each with its parameters, request body, responses and examples;
 * schemas as nested lists, references as links to the schema section. A few hundred lines instead of a framework.
 */
import "./docs.css";
import { h, show, status } from "./dom.ts";

type Json = Record<string, unknown>;

interface Schema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  nullable?: boolean;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

interface Document {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

const METHODS = ["get", "post", "put", "patch", "delete"];
/** How deep inline schemas nest before the rest is left to the schema section. */
const MAX_DEPTH = 6;

const app = document.getElementById("app")!;

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf("/") + 1);
}

function schemaAnchor(name: string): string {
  return `schema-${name}`;
}

function operationAnchor(method: string, path: string): string {
  return `op-${method}-${path.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "")}`;
}

/** Prose from the document: paragraphs, `- ` lists and `code`; always text, never parsed as HTML. */
function prose(text: string | undefined): Node[] {
  if (!text) return [];
  return text.split(/\n\s*\n/).map((block) => {
    const lines = block.split("\n");
    if (lines.every((l) => /^\s*[-*] /.test(l)))
      return h("ul", {}, ...lines.map((l) => h("li", {}, ...inline(l.replace(/^\s*[-*] /, "")))));
    return h("p", {}, ...inline(block));
  });
}

function inline(text: string): (Node | string)[] {
  return text.split(/(`[^`]+`)/).map((part) => (/^`[^`]+`$/.test(part) ? h("code", {}, part.slice(1, -1)) : part));
}

/** The type of a schema in a few words: `string`, `array of Tool`, `integer (1..50)`, `"a" | "b"`. */
function typeLabel(schema: Schema): (Node | string)[] {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return [h("a", { href: `#${schemaAnchor(name)}` }, name)];
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.flatMap((v, i) => [...(i ? [" | "] : []), ...typeLabel(v)]);
  if (schema.allOf) return schema.allOf.flatMap((v, i) => [...(i ? [" & "] : []), ...typeLabel(v)]);
  if (schema.enum) return [schema.enum.map((v) => JSON.stringify(v)).join(" | ")];
  if (schema.const !== undefined) return [JSON.stringify(schema.const)];
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes("array") && schema.items) return ["array of ", ...typeLabel(schema.items)];
  if (types.length === 0) return [schema.properties ? "object" : "any"];
  const label = types.join(" | ") + (schema.format ? ` (${schema.format})` : "");
  return [schema.nullable ? `${label} | null` : label];
}

/** Bounds, pattern and default, as a short line. */
function constraints(schema: Schema): string {
  const out: string[] = [];
  const range = (low?: number, high?: number, unit = "") =>
    low !== undefined && high !== undefined
      ? `${low}..${high}${unit}`
      : low !== undefined
        ? `>= ${low}${unit}`
        : high !== undefined
          ? `<= ${high}${unit}`
          : null;
  const value = range(schema.minimum ?? schema.exclusiveMinimum, schema.maximum ?? schema.exclusiveMaximum);
  if (value) out.push(value);
  const length = range(schema.minLength, schema.maxLength, " chars");
  if (length) out.push(length);
  const items = range(schema.minItems, schema.maxItems, " items");
  if (items) out.push(items);
  if (schema.pattern) out.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  return out.join(", ");
}

/** A schema's properties (or items) as a nested list; references stay links to their own section. */
function schemaTree(schema: Schema, depth = 0): HTMLElement | null {
  if (depth > MAX_DEPTH || schema.$ref) return null;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("array") && schema.items && !schema.items.$ref) return schemaTree(schema.items, depth);
  const variants = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (variants) {
    const trees = variants.map((v) => schemaTree(v, depth + 1)).filter((t): t is HTMLElement => t !== null);
    return trees.length ? h("div", { class: "variants" }, ...trees) : null;
  }
  const properties = Object.entries(schema.properties ?? {});
  const extra = typeof schema.additionalProperties === "object" ? schema.additionalProperties : null;
  if (properties.length === 0 && !extra) return null;
  const required = new Set(schema.required ?? []);
  const rows = properties.map(([name, property]) => {
    const nested = schemaTree(property, depth + 1);
    const limits = constraints(property);
    return h(
      "li",
      {},
      h("code", { class: "prop" }, name),
      " ",
      h("span", { class: "type" }, ...typeLabel(property)),
      required.has(name) ? h("span", { class: "required" }, " required") : null,
      limits ? h("span", { class: "limits" }, ` · ${limits}`) : null,
      property.description ? h("div", { class: "prop-doc" }, ...inline(property.description)) : null,
      nested,
    );
  });
  if (extra)
    rows.push(
      h(
        "li",
        {},
        h("code", { class: "prop" }, "{any key}"),
        " ",
        h("span", { class: "type" }, ...typeLabel(extra)),
        schemaTree(extra, depth + 1),
      ),
    );
  return h("ul", { class: "schema" }, ...rows);
}

function examples(schema: Schema | undefined, doc: Document): HTMLElement | null {
  const target = schema?.$ref ? doc.components?.schemas?.[refName(schema.$ref)] : schema;
  const list = target?.examples ?? (target?.example !== undefined ? [target.example] : []);
  if (list.length === 0) return null;
  return h(
    "details",
    { class: "examples" },
    h("summary", {}, list.length === 1 ? "Example" : `Examples (${list.length})`),
    ...list.map((e) => h("pre", { tabindex: "0" }, JSON.stringify(e, null, 2))),
  );
}

/** A request or response body: its media type, its schema (a referenced one shown in place) and examples. */
function body(content: Record<string, { schema?: Schema }> | undefined, doc: Document): HTMLElement[] {
  return Object.entries(content ?? {}).map(([media, { schema }]) => {
    const resolved = schema?.$ref ? doc.components?.schemas?.[refName(schema.$ref)] : schema;
    return h(
      "div",
      { class: "body" },
      h("p", {}, h("code", {}, media), schema ? [" · ", h("span", { class: "type" }, ...typeLabel(schema))] : null),
      resolved?.description && schema?.$ref ? h("p", { class: "hint" }, ...inline(resolved.description)) : null,
      resolved ? schemaTree(resolved) : null,
      examples(schema, doc),
    );
  });
}

function parameter(p: Parameter | { $ref: string }, doc: Document): Parameter | undefined {
  return "$ref" in p ? doc.components?.parameters?.[refName(p.$ref)] : p;
}

function operation(method: string, path: string, op: Operation, doc: Document): HTMLElement {
  const params = (op.parameters ?? []).map((p) => parameter(p, doc)).filter((p): p is Parameter => p !== undefined);
  const scopes = (op.security ?? []).flatMap((s) => Object.values(s).flat());
  const responses = Object.entries(op.responses ?? {});
  const errors = responses.filter(([code]) => Number(code) >= 400);
  const success = responses.filter(([code]) => Number(code) < 400);
  return h(
    "section",
    { class: "operation", id: operationAnchor(method, path), "aria-labelledby": `${operationAnchor(method, path)}-h` },
    h(
      "h3",
      { id: `${operationAnchor(method, path)}-h` },
      h("span", { class: `method ${method}` }, method.toUpperCase()),
      " ",
      h("code", { class: "path" }, path),
    ),
    op.summary ? h("p", { class: "summary" }, ...inline(op.summary)) : null,
    ...prose(op.description),
    scopes.length || op.security
      ? h(
          "p",
          { class: "hint" },
          scopes.length ? `Bearer token with scope: ${[...new Set(scopes)].join(", ")}` : "Bearer token",
        )
      : h("p", { class: "hint" }, "No authentication"),
    params.length
      ? h(
          "table",
          {},
          h("caption", {}, "Parameters"),
          h(
            "thead",
            {},
            h("tr", {}, ...["name", "in", "type", "description"].map((c) => h("th", { scope: "col" }, c))),
          ),
          h(
            "tbody",
            {},
            ...params.map((p) => {
              const limits = p.schema ? constraints(p.schema) : "";
              return h(
                "tr",
                {},
                h("td", {}, h("code", {}, p.name), p.required ? h("span", { class: "required" }, " required") : null),
                h("td", {}, p.in),
                h("td", {}, ...(p.schema ? typeLabel(p.schema) : ["any"]), limits ? ` · ${limits}` : ""),
                h("td", {}, ...inline(p.description ?? p.schema?.description ?? "")),
              );
            }),
          ),
        )
      : null,
    op.requestBody
      ? h(
          "div",
          {},
          h("h4", {}, op.requestBody.required ? "Request body" : "Request body (optional)"),
          ...body(op.requestBody.content, doc),
        )
      : null,
    ...success.map(([code, response]) =>
      h(
        "div",
        {},
        h("h4", {}, `Response ${code}`, response.description ? ` · ${response.description}` : ""),
        ...body(response.content, doc),
      ),
    ),
    errors.length
      ? h(
          "p",
          { class: "errors" },
          "Errors ({error, message}): ",
          ...errors.flatMap(([code, r], i) => [i ? ", " : "", h("code", {}, code), ` ${r.description ?? ""}`]),
        )
      : null,
  );
}

function render(doc: Document): void {
  const byTag = new Map<string, [string, string, Operation][]>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push([method, path, op]);
    }
  const filter = h("input", { id: "filter", type: "search", autocomplete: "off", placeholder: "path, word or tag" });
  const links: [HTMLElement, string][] = [];
  const nav = h(
    "nav",
    { class: "toc", "aria-label": "Operations" },
    h("div", { class: "field" }, h("label", { for: "filter" }, "Filter operations"), filter),
    ...[...byTag].map(([tag, ops]) =>
      h(
        "div",
        { class: "toc-group" },
        h("h2", {}, tag),
        h(
          "ul",
          {},
          ...ops.map(([method, path, op]) => {
            const item = h(
              "li",
              {},
              h(
                "a",
                { href: `#${operationAnchor(method, path)}` },
                h("span", { class: `method ${method}` }, method.toUpperCase()),
                " ",
                path.replace("/v1/tenants/{tenant}", "…"),
              ),
            );
            links.push([item, `${tag} ${method} ${path} ${op.summary ?? ""}`.toLowerCase()]);
            return item;
          }),
        ),
      ),
    ),
    h("div", { class: "toc-group" }, h("h2", {}, "schemas"), h("p", {}, h("a", { href: "#schemas" }, "Every schema"))),
  );
  filter.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const [item, text] of links) item.hidden = !words.every((w) => text.includes(w));
  });
  const schemas = Object.entries(doc.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const content = h(
    "main",
    { id: "main", tabindex: "-1" },
    h("h1", {}, doc.info.title, h("span", { class: "version" }, ` ${doc.info.version}`)),
    ...prose(doc.info.description),
    h(
      "p",
      { class: "hint" },
      "The document itself: ",
      h("a", { href: "/openapi.json" }, "/openapi.json"),
      ". Try searches in the ",
      h("a", { href: "/console" }, "console"),
      ".",
    ),
    ...[...byTag].map(([tag, ops]) =>
      h(
        "section",
        { class: "tag", "aria-label": tag },
        h("h2", {}, tag),
        ...ops.map(([method, path, op]) => operation(method, path, op, doc)),
      ),
    ),
    h(
      "section",
      { id: "schemas", "aria-label": "Schemas" },
      h("h2", {}, "Schemas"),
      ...schemas.map(([name, schema]) =>
        h(
          "section",
          { class: "schema-def", id: schemaAnchor(name) },
          h("h3", {}, h("code", {}, name), " ", h("span", { class: "type" }, ...typeLabel(schema))),
          ...prose(schema.description),
          schemaTree(schema),
          examples(schema, doc),
        ),
      ),
    ),
  );
  const skip = h("a", { class: "skip", href: "#main" }, "Skip to content");
  skip.addEventListener("click", (event) => {
    event.preventDefault();
    content.focus();
  });
  show(app, skip, h("div", { class: "layout" }, nav, content));
  document.title = `${doc.info.title} · API reference`;
  // The fragment names an operation or a schema that only exists now.
  if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
}

fetch("/openapi.json")
  .then((r) => (r.ok ? (r.json() as Promise<Json>) : Promise.reject(new Error(`/openapi.json: HTTP ${r.status}`))))
  .then((doc) => render(doc as unknown as Document))
  .catch((e: unknown) => show(app, status(e instanceof Error ? e.message : String(e), "error")));
