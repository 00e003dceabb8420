/**
 * Hostile input on every route (property-based, fast-check). Each run sends a request built from
 * the route's valid example and then broken: random and malformed JSON, wrong types, missing and
 * extra fields, huge strings, deep nesting, invalid UTF-8, unicode edge cases, wrong content
 * types, duplicate tools, and path traversal or injection attempts in path segments and query
 * parameters. For every answer:
 *
 * - never a 5xx;
 * - an error is `{error, message}` with a stable code whose status it carries;
 * - no stack trace or internal detail;
 * - a refused request changes nothing the tenant holds (catalog, keys, settings, sessions, audit).
 *
 * `npm test` runs a few cases per route; `npm run fuzz` runs many (FUZZ_RUNS).
 */
import fc from "fast-check";
import { describe, expect, inject, it } from "vitest";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../../src/errors.ts";
import { OPERATOR } from "../helpers.ts";
import {
  documentedRoutes,
  EXAMPLES,
  exampleRequest,
  fillPath,
  fixture,
  send,
  servedRoutes,
  stateFingerprint,
  type Example,
  type Fixture,
  type RawRequest,
  type Route,
} from "../routes.ts";

const RUNS = inject("fuzzRuns");
const routes = await documentedRoutes();

// ---- hostile material --------------------------------------------------------------------------

const HOSTILE_STRINGS = [
  "",
  " ",
  "../",
  "../../etc/passwd",
  "..%2f..%2f",
  "%2e%2e",
  "%2e%2e%2f",
  "%252e%252e%252f",
  "..\\..\\",
  "%00",
  "\u0000",
  "a\u0000b",
  "' OR '1'='1",
  "'; DROP TABLE tools; --",
  '" OR ""="',
  "::",
  ":::",
  "a::b::c",
  "::x",
  "x::",
  "alpha::",
  "alpha::../read_file",
  "\ud800",
  "\udfff",
  "a\ud83dz",
  "\u202eevil\u202c",
  "\u200b",
  "\ufeff",
  "😀🔥",
  "👨‍👩‍👧‍👦",
  "e\u0301",
  "%",
  "%ZZ",
  "%E0%A4%A",
  "/",
  "//",
  "?x=1",
  "#frag",
  "\t\n\r",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, meant as plain text
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
  "__proto__",
  "constructor",
  "prototype",
  "tsk_",
  "null",
  "-1",
  "1e400",
  "NaN",
];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom(...HOSTILE_STRINGS), { minLength: 2, maxLength: 5 })
      .map((parts) => parts.join("")),
  },
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 70_000 }).map((n) => "x".repeat(n)) },
);

/** Any JSON value, with hostile strings among the leaves. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308),
  fc.array(hostileString, { maxLength: 4 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
);

function nest(depth: number, kind: "array" | "object", leaf: unknown = 1): string {
  return kind === "array"
    ? "[".repeat(depth) + JSON.stringify(leaf) + "]".repeat(depth)
    : '{"a":'.repeat(depth) + JSON.stringify(leaf) + "}".repeat(depth);
}

/** The valid body with one field removed, replaced or added, or a field value nested deep inside it. */
function mutateObject(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(valid);
  const extraKey = fc.oneof(
    fc.constantFrom("__proto__", "constructor", "extra", "tools", "id", "query"),
    hostileString,
  );
  const options: fc.Arbitrary<unknown>[] = [extraKey.chain((k) => hostileJson.map((v) => ({ ...valid, [k]: v })))];
  if (keys.length > 0) {
    const key = fc.constantFrom(...keys);
    options.push(key.map((k) => Object.fromEntries(Object.entries(valid).filter(([kk]) => kk !== k))));
    options.push(key.chain((k) => hostileJson.map((v) => ({ ...valid, [k]: v }))));
  }
  return fc.oneof(...options);
}

/** Tools arrays get tool-shaped trouble: duplicates, hostile names and servers, broken schemas, deep schemas. */
function mutateTools(valid: Record<string, unknown>): fc.Arbitrary<unknown> | null {
  const tools = valid.tools;
  if (!Array.isArray(tools) || tools.length === 0) return null;
  const first = tools[0] as Record<string, unknown>;
  const broken = fc.oneof(
    hostileString.map((name) => ({ ...first, name })),
    hostileString.map((server) => ({ ...first, server })),
    hostileString.map((description) => ({ ...first, description })),
    hostileJson.map((inputSchema) => ({ ...first, inputSchema })),
    fc
      .integer({ min: 20, max: 3_000 })
      .map((d) => ({ ...first, inputSchema: { type: "object", properties: JSON.parse(nest(d, "object")) } })),
    fc.integer({ min: 20, max: 3_000 }).map((d) => ({ ...first, annotations: { a: JSON.parse(nest(d, "array")) } })),
    mutateObject(first),
  );
  return fc.oneof(
    fc.constant({ ...valid, tools: [first, first] }),
    broken.map((tool) => ({ ...valid, tools: [tool] })),
    broken.map((tool) => ({ ...valid, tools: [first, tool] })),
  );
}

type Body = { text?: string; bytes?: Uint8Array; contentType?: string };

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/JSON",
  "application/json;charset=utf-16",
  "application/x-ndjson",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/vnd.api+json",
  "",
];

function bodyArb(valid: unknown, rawText?: string): fc.Arbitrary<Body> {
  const json = (value: unknown) => ({ text: JSON.stringify(value), contentType: "application/json" });
  const validText = rawText ?? (valid === undefined ? "{}" : JSON.stringify(valid));
  const shapes: fc.Arbitrary<Body>[] = [
    hostileJson.map(json),
    fc.string({ maxLength: 200 }).map((text) => ({ text, contentType: "application/json" })),
    fc
      .integer({ min: 1, max: Math.max(1, validText.length - 1) })
      .map((n) => ({ text: validText.slice(0, n), contentType: "application/json" })),
    fc
      .tuple(fc.integer({ min: 50, max: 200_000 }), fc.constantFrom("array" as const, "object" as const))
      .map(([d, kind]) => ({ text: nest(d, kind), contentType: "application/json" })),
    fc.constantFrom(...CONTENT_TYPES).map((contentType) => ({ text: validText, contentType })),
    fc.constant({ text: validText }),
    fc.constant({}),
    fc.constant({ text: "", contentType: "application/json" }),
    // Invalid UTF-8 (a stray continuation byte, an overlong slash, a CESU-8 surrogate) inside a JSON string.
    fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80]).map((bad) => {
      const enc = new TextEncoder().encode(validText.replace(/"([^"]*)"/, '"$1@@"'));
      const at = new TextDecoder().decode(enc).indexOf("@@");
      const bytes = new Uint8Array([...enc.slice(0, at), ...bad, ...enc.slice(at + 2)]);
      return { bytes, contentType: "application/json" };
    }),
    // A lone surrogate escape and NUL escapes inside a string.
    fc
      .constantFrom("\\ud800", "\\udfff", "\\u0000", "\\ud83d\\u0041")
      .map((esc) => ({ text: validText.replace(/"([^"]*)"/, `"$1${esc}"`), contentType: "application/json" })),
  ];
  if (valid && typeof valid === "object" && !Array.isArray(valid)) {
    const obj = valid as Record<string, unknown>;
    shapes.push(mutateObject(obj).map(json));
    shapes.push(
      fc.integer({ min: 20, max: 50_000 }).map((d) => ({
        text: JSON.stringify({ ...obj, deep: 0 }).replace('"deep":0', `"deep":${nest(d, "array")}`),
        contentType: "application/json",
      })),
    );
    // Deep values where schemas are walked (tool schemas), built as text: too deep for JSON.stringify here.
    if (validText.includes('"inputSchema":{')) {
      shapes.push(
        fc
          .tuple(fc.integer({ min: 20, max: 200_000 }), fc.constantFrom("array" as const, "object" as const))
          .map(([d, kind]) => ({
            text: validText.replace('"inputSchema":{', `"inputSchema":{"properties":{"p":${nest(d, kind)}},`),
            contentType: "application/json",
          })),
      );
    }
    const tools = mutateTools(obj);
    if (tools)
      shapes.push(
        tools.map(json),
        tools.map((v) => ({
          text: ((v as { tools: unknown[] }).tools ?? []).map((t) => JSON.stringify(t)).join("\n"),
          contentType: "application/x-ndjson",
        })),
      );
  }
  return fc.oneof(...shapes);
}

const queryArb = (valid: Record<string, string> | undefined) =>
  fc.oneof(
    fc.constant(valid),
    fc.dictionary(fc.constantFrom("limit", "cursor", "server", "format", "x", "limit[]"), hostileString, {
      maxKeys: 3,
    }),
    valid
      ? fc.constantFrom(...Object.keys(valid)).chain((k) => hostileString.map((v) => ({ ...valid, [k]: v })))
      : fc.constant(undefined),
  );

interface Mutation {
  /** Path params replaced with hostile values, and whether each goes in percent-encoded or as-is. */
  params: Record<string, { value: string; raw: boolean }>;
  query: Record<string, string> | undefined;
  body: Body | null;
  operator: boolean;
}

function mutationArb(route: Route, example: Example): fc.Arbitrary<Mutation> {
  const names = Object.keys(example.params);
  const params = names.length
    ? fc
        .subarray(names)
        .chain((picked) =>
          fc
            .tuple(...picked.map(() => fc.record({ value: hostileString, raw: fc.boolean() })))
            .map((values) => Object.fromEntries(picked.map((n, i) => [n, values[i]!]))),
        )
    : fc.constant({});
  const hasBody =
    example.body !== undefined || example.raw !== undefined || ["POST", "PUT", "PATCH"].includes(route.method);
  return fc.record({
    params,
    query: route.method === "GET" ? queryArb(example.query) : fc.constant(example.query),
    body: hasBody ? fc.option(bodyArb(example.body, example.raw?.text), { freq: 6 }) : fc.constant(null),
    operator: fc.integer({ min: 0, max: 9 }).map((n) => n < 3),
  });
}

// ---- the invariants ----------------------------------------------------------------------------

/** Words that mean internals leaked, unless the request itself contained them (an echoed id). */
const LEAKS = [
  /\bat \S+ \(\S+:\d+:\d+\)/,
  /\.ts:\d+/,
  /node_modules/,
  /\bstack\b/i,
  /TypeError|RangeError|SyntaxError|ReferenceError/,
  /SQLITE|sqlite_|no such table/i,
  /workerd|internal error/i,
];

/** A JSON-RPC error from an MCP route (`{jsonrpc: "2.0", error: {code, message}}`). */
function isJsonRpcError(route: Route, body: any): boolean {
  return (
    route.path.endsWith("/mcp") && body?.jsonrpc === "2.0" && typeof body.error === "object" && body.error !== null
  );
}

function checkReply(
  route: Route,
  request: RawRequest,
  reply: { status: number; text: string; body: any; headers: Headers },
): void {
  const where =
    `${request.method} ${request.path.slice(0, 300)} -> ${reply.status} ${reply.text.slice(0, 300)}`.replace(
      /\p{Surrogate}/gu,
      "?",
    );
  expect(reply.status, where).toBeLessThan(500);
  if (reply.status >= 400 && isJsonRpcError(route, reply.body)) {
    // MCP routes answer protocol errors the protocol's way: a JSON-RPC error object.
    expect(typeof reply.body.error.code, where).toBe("number");
    expect(typeof reply.body.error.message, where).toBe("string");
  } else if (reply.status >= 400) {
    expect(reply.headers.get("content-type") ?? "", where).toContain("application/json");
    expect(ERROR_CODES, where).toContain(reply.body?.error);
    expect(typeof reply.body.message, where).toBe("string");
    const code = reply.body.error as ErrorCode;
    const expected = code === "invalid-request" ? [400, 415] : [ERROR_STATUS[code]];
    expect(expected, where).toContain(reply.status);
  }
  const sent = `${request.path} ${typeof request.body === "string" ? request.body : ""}`;
  for (const leak of LEAKS) {
    if (leak.test(reply.text) && !leak.test(sent)) expect.fail(`${route.id} leaked ${leak}: ${where}`);
  }
}

function build(route: Route, example: Example, m: Mutation, f: Fixture): RawRequest {
  const params: Record<string, string> = { ...example.params };
  const raw = new Set<string>();
  for (const [name, p] of Object.entries(m.params)) {
    params[name] = p.value;
    if (p.raw) raw.add(name);
  }
  const query = m.query ? `?${new URLSearchParams(m.query)}` : "";
  const base = exampleRequest(route, example, m.operator ? OPERATOR : f.key);
  const request: RawRequest = { ...base, path: fillPath(route.path, params, raw) + query };
  if (m.body) {
    delete request.contentType;
    delete request.body;
    if (m.body.contentType !== undefined) request.contentType = m.body.contentType;
    if (m.body.bytes) request.body = m.body.bytes;
    else if (m.body.text !== undefined) request.body = m.body.text;
  }
  return request;
}

/**
 * Values compared as JSON text, where a lone surrogate is an escape: the pool reports failures over
 * a WebSocket that refuses text that is not valid Unicode, so a raw one would hide the failure.
 */
const escaped = (value: unknown) => JSON.stringify(value);

/** Strings a client may send anywhere: any code point, lone surrogates, NUL, RTL marks, emoji, long ones. */
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: "grapheme", maxLength: 30 }),
);

describe("what is stored is what was sent", () => {
  it("a tool's text fields read back exactly as uploaded, or the upload is refused and nothing changes", async () => {
    const f = await fixture();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        anyText,
        anyText,
        fc.array(anyText, { maxLength: 3 }),
        anyText,
        async (description, title, keywords, paramText) => {
          const name = `text_${++n}`;
          const tool = {
            server: "unicode",
            name,
            title,
            description,
            keywords,
            inputSchema: { type: "object", properties: { p: { type: "string", description: paramText } } },
          };
          const before = await stateFingerprint(f.tenant);
          const up = await send({
            method: "POST",
            path: `/v1/tenants/${f.tenant}/tools`,
            token: f.key,
            contentType: "application/json",
            body: JSON.stringify({ tools: [tool] }),
          });
          expect(up.status, up.text).toBeLessThan(500);
          if (up.status !== 200) {
            expect(up.body.error).toBe("invalid-request");
            expect((await stateFingerprint(f.tenant)) === before, "a refused upload wrote").toBe(true);
            return;
          }
          const got = await send({
            method: "GET",
            path: `/v1/tenants/${f.tenant}/tools/unicode::${name}`,
            token: f.key,
          });
          const { description: d, title: t, keywords: k } = got.body;
          expect(escaped([d, t, k, got.body.definition.inputSchema.properties.p.description])).toBe(
            escaped([description, title, keywords, paramText]),
          );
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it("a body that is not valid UTF-8 is refused, never stored with replacement characters", async () => {
    const f = await fixture();
    const invalid = fc.constantFrom(
      [0xff],
      [0xfe],
      [0x80],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xc3],
    );
    await fc.assert(
      fc.asyncProperty(invalid, fc.string({ maxLength: 10 }), async (bad, around) => {
        const [head, tail] = JSON.stringify({
          tools: [
            { server: "bytes", ...{ name: "b", description: `${around}@@${around}`, inputSchema: { type: "object" } } },
          ],
        }).split("@@");
        const body = new Uint8Array([...new TextEncoder().encode(head), ...bad, ...new TextEncoder().encode(tail)]);
        const before = await stateFingerprint(f.tenant);
        const r = await send({
          method: "POST",
          path: `/v1/tenants/${f.tenant}/tools`,
          token: f.key,
          contentType: "application/json",
          body,
        });
        expect(r.status).toBe(400);
        expect(r.body.message).toContain("UTF-8");
        expect((await stateFingerprint(f.tenant)) === before, "a refused upload wrote").toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("a key's label and a session tool's description read back exactly as sent, or are refused", async () => {
    const f = await fixture();
    await fc.assert(
      fc.asyncProperty(anyText, anyText, async (label, description) => {
        const key = await send({
          method: "POST",
          path: `/v1/tenants/${f.tenant}/keys`,
          token: OPERATOR,
          contentType: "application/json",
          body: JSON.stringify({ scopes: ["search"], label }),
        });
        expect(key.status, key.text).toBeLessThan(500);
        if (key.status === 201) {
          expect(escaped(key.body.label)).toBe(escaped(label));
          const listed = await send({ method: "GET", path: `/v1/tenants/${f.tenant}/keys`, token: OPERATOR });
          expect(escaped(listed.body.keys.find((k: { id: string }) => k.id === key.body.id).label)).toBe(
            escaped(label),
          );
          await send({ method: "DELETE", path: `/v1/tenants/${f.tenant}/keys/${key.body.id}`, token: OPERATOR });
        }
        const tools = { tools: [{ name: "client_tool", description, inputSchema: { type: "object" } }] };
        const set = await send({
          method: "PUT",
          path: `/v1/tenants/${f.tenant}/sessions/${f.session}/tools`,
          token: f.key,
          contentType: "application/json",
          body: JSON.stringify(tools),
        });
        expect(set.status, set.text).toBeLessThan(500);
        if (set.status === 200) {
          const resolved = await send({
            method: "POST",
            path: `/v1/tenants/${f.tenant}/sessions/${f.session}/resolve`,
            token: f.key,
            contentType: "application/json",
            body: '{"name":"client_tool"}',
          });
          expect(escaped(resolved.body.definition.description)).toBe(escaped(description));
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("hostile input", () => {
  it("every route the app serves is documented and has an example to fuzz from", () => {
    const documented = routes.map((r) => r.id);
    expect(servedRoutes()).toEqual(documented);
    expect(Object.keys(EXAMPLES).sort()).toEqual(documented);
  });

  for (const route of routes) {
    it(`${route.id}: never a 5xx, always {error, message}, nothing written when refused`, async () => {
      const f = await fixture();
      const exampleFor = EXAMPLES[route.id];
      if (!exampleFor) expect.fail(`${route.id} has no example in test/routes.ts`);
      // The arbitrary is built from one example; each run then takes a fresh one (routes that consume
      // a resource, like DELETE, get a new resource every time) and applies the mutation to it.
      const template = await exampleFor(f);
      await fc.assert(
        fc.asyncProperty(mutationArb(route, template), async (mutation) => {
          const example = await exampleFor(f);
          const request = build(route, example, mutation, f);
          const before = await stateFingerprint(f.tenant);
          let reply: Awaited<ReturnType<typeof send>>;
          try {
            reply = await send(request);
          } catch (e) {
            // The runtime refused to build the request (an invalid URL): nothing reached the service.
            if (e instanceof TypeError && /URL|header/i.test(e.message)) return;
            throw e;
          }
          checkReply(route, request, reply);
          if (reply.status >= 400 && (await stateFingerprint(f.tenant)) !== before) {
            const sent = `${request.method} ${request.path.slice(0, 200)}`;
            expect.fail(`${sent} -> ${reply.status} ${reply.text.slice(0, 200)} wrote`.replace(/\p{Surrogate}/gu, "?"));
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
});
