/**
 * Who may call what: every route x every kind of credential, with the status each must get. The
 * routes and the scope each requires come from /openapi.json (declared once per route with
 * `requires(...)`), so a new route, or a route whose declared scope and enforced scope disagree,
 * fails here. A refused call must leave the tenant unchanged and show nothing of it.
 */
import { describe, expect, it } from "vitest";
import { createKey, OPERATOR, tenantWithKey } from "../helpers.ts";
import {
  documentedRoutes,
  EXAMPLES,
  exampleRequest,
  fixture,
  FIXTURE_TOOLS,
  send,
  stateFingerprint,
  type Access,
  type Fixture,
} from "../routes.ts";

const routes = await documentedRoutes();

const CREDENTIALS = [
  "none",
  "garbage",
  "tampered",
  "revoked",
  "search",
  "write",
  "admin",
  "other-tenant",
  "operator",
] as const;
type Credential = (typeof CREDENTIALS)[number];

interface Tokens {
  garbage: string;
  tampered: string;
  revoked: string;
  search: string;
  write: string;
  admin: string;
  "other-tenant": string;
}

async function tokensFor(f: Fixture): Promise<Tokens> {
  const revoked = await createKey(f.tenant, ["search", "write", "admin"]);
  await send({ method: "DELETE", path: `/v1/tenants/${f.tenant}/keys/${revoked.split("_")[2]}`, token: OPERATOR });
  const other = await tenantWithKey();
  return {
    garbage: "nonsense-token",
    tampered: f.key.slice(0, -1) + (f.key.endsWith("A") ? "B" : "A"),
    revoked,
    search: f.searchKey, // the owner of the fixture's sessions: another search key is told they do not exist
    write: await createKey(f.tenant, ["write"]),
    admin: await createKey(f.tenant, ["admin"]),
    "other-tenant": other.key,
  };
}

/** The status class a credential gets on a route that requires `access`: "ok" (the route's success) or a refusal. */
function expected(access: Access, credential: Credential): "ok" | 401 | 403 {
  if (access === "none" || credential === "operator") return "ok";
  if (credential === "none" || credential === "garbage") return 401;
  if (access === "operator") return 403; // any tenant key, even a bad or revoked one, is not the operator
  if (credential === "tampered" || credential === "revoked") return 401;
  if (credential === "other-tenant") return 403;
  return credential === access ? "ok" : 403;
}

describe("access matrix", () => {
  it("covers every documented route, and every route declares who may call it", () => {
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes)
      expect(["none", "operator", "search", "write", "admin"], route.id).toContain(route.access);
    expect(routes.filter((r) => r.access === "none").map((r) => r.id)).toEqual(["GET /healthz"]);
  });

  for (const route of routes) {
    it(`${route.id} (${route.access})`, async () => {
      const f = await fixture();
      const tokens = await tokensFor(f);
      const exampleFor = EXAMPLES[route.id];
      if (!exampleFor) expect.fail(`${route.id} has no example in test/routes.ts`);
      for (const credential of CREDENTIALS) {
        const token = credential === "none" ? null : credential === "operator" ? OPERATOR : tokens[credential];
        const example = await exampleFor(f);
        const before = await stateFingerprint(f.tenant);
        const reply = await send(exampleRequest(route, example, token));
        const want = expected(route.access, credential);
        const where = `${route.id} with ${credential}: ${reply.status} ${reply.text.slice(0, 200)}`;
        if (want === "ok") {
          expect(example.ok, where).toContain(reply.status);
          continue;
        }
        expect(reply.status, where).toBe(want);
        expect(reply.body.error, where).toBe(want === 401 ? "unauthorized" : "forbidden");
        expect(await stateFingerprint(f.tenant), `${where} changed the tenant`).toBe(before);
        for (const tool of FIXTURE_TOOLS) expect(reply.text, where).not.toContain(tool.name);
      }
    });
  }
});
