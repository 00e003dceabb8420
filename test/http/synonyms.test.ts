/**
 * Synonyms: the built-in thesaurus (words people use against the words catalogs use), a tenant's own synonyms, and
 * per-tool keywords: words a catalog lacks, supplied by its owner.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ABBREVIATION_WEIGHT, BUILTIN_EXPANSION_WEIGHT, SHORT_EXPANSION_FACTOR } from "../../src/search/query.ts";
import { call, createKey, mcpTool, search, tenantWithKey, upsert } from "../helpers.ts";

const ids = (r: { body: { results: { tool_id: string }[] } }) => r.body.results.map((x) => x.tool_id);
const synonymsPath = (tenant: string) => `/v1/tenants/${tenant}/synonyms`;
const putSynonyms = (tenant: string, key: string, synonyms: unknown) =>
  call("PUT", synonymsPath(tenant), { token: key, body: { synonyms } });

/** A catalog big enough for word rarity to mean something, with GitHub tools that never say "repo" or "PR". */
const CATALOG = [
  { server: "github", ...mcpTool("list_repositories", "List the repositories of the authenticated user") },
  {
    server: "github",
    ...mcpTool("get_pull_request", "Get the details of a pull request", {
      number: { type: "integer", description: "Pull request number" },
    }),
  },
  { server: "fs", ...mcpTool("read_file", "Read the contents of a file") },
  { server: "mail", ...mcpTool("send_email", "Send an email message") },
  ...Array.from({ length: 20 }, (_, i) => ({
    server: "misc",
    ...mcpTool(`helper_${i}`, `Miscellaneous helper number ${i} for spreadsheets`),
  })),
];

/** A tenant with CATALOG; without the built-in thesaurus unless asked, so that tenant synonyms are seen alone. */
async function tenantWithCatalog(builtin = false) {
  const t = await tenantWithKey();
  const up = await upsert(t.tenant, t.key, CATALOG);
  expect(up.status, up.text).toBe(200);
  if (!builtin) {
    const off = await call("PATCH", `/v1/tenants/${t.tenant}/settings`, {
      token: t.key,
      body: { builtin_synonyms: false },
    });
    expect(off.status, off.text).toBe(200);
  }
  return t;
}

describe("the built-in thesaurus", () => {
  it("finds a tool by words people use for it, at reduced weight, and explain says which rule", async () => {
    const { tenant, key } = await tenantWithCatalog(true);
    const r = await search(tenant, key, { query: "show my repos", explain: true });
    expect(ids(r)[0]).toBe("github::list_repositories");
    const expansion = r.body.results[0].explain.terms.find((t: { via?: string }) => t.via === "builtin:repo");
    // "repo" abbreviates "repository": in a short query its expansion weighs nearly what the user's own word would.
    expect(expansion.weight).toBe(ABBREVIATION_WEIGHT);
    expect(expansion.weight).toBeLessThan(1);
    // A near-synonym weighs less (mail -> email): BUILTIN_EXPANSION_WEIGHT x SHORT_EXPANSION_FACTOR ("mail" is the
    // server's name here, so the catalog knows the word).
    const mail = await search(tenant, key, { query: "mail", explain: true, threshold: 0 });
    expect(ids(mail)[0]).toBe("mail::send_email");
    const near = mail.body.results[0].explain.terms.find((t: { via?: string }) => t.via === "builtin:mail");
    expect(near?.weight).toBeCloseTo(BUILTIN_EXPANSION_WEIGHT * SHORT_EXPANSION_FACTOR, 10);
    expect(near?.weight).toBeLessThan(ABBREVIATION_WEIGHT);
    expect(ids(await search(tenant, key, { query: "review the PR" }))[0]).toBe("github::get_pull_request");
  });

  it("is a setting: off, the same queries miss", async () => {
    const { tenant, key } = await tenantWithCatalog(false);
    expect(ids(await search(tenant, key, { query: "show my repos" }))).not.toContain("github::list_repositories");
    expect((await search(tenant, key, { query: "review the PR" })).body.results).toEqual([]);
  });

  it("yields to a tenant rule for the same key, and never outvotes the query's own words", async () => {
    const { tenant, key } = await tenantWithCatalog(true);
    const own = [
      { server: "news", ...mcpTool("publish_press_release", "Publish a press release") },
      { server: "git", ...mcpTool("list_repos", "List repos") },
    ];
    expect((await upsert(tenant, key, own)).status).toBe(200);
    // "repos" is the word of git::list_repos; github's tool is reached only through the expansion.
    expect(ids(await search(tenant, key, { query: "list repos" })).slice(0, 2)).toEqual([
      "git::list_repos",
      "github::list_repositories",
    ]);
    expect((await putSynonyms(tenant, key, { PR: ["press release"] })).status).toBe(200);
    const r = await search(tenant, key, { query: "review the PR", explain: true, threshold: 0 });
    expect(ids(r)[0]).toBe("news::publish_press_release");
    const vias = r.body.results.flatMap((x: { explain: { terms: { via?: string }[] } }) =>
      x.explain.terms.map((t) => t.via),
    );
    expect(vias).toContain("PR");
    expect(vias).not.toContain("builtin:pr");
  });
});

describe("synonyms", () => {
  it("a query that misses without a synonym finds the tool with it", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const before = await search(tenant, key, { query: "show my repos" });
    expect(before.status).toBe(200);
    expect(ids(before)).not.toContain("github::list_repositories");
    const review = await search(tenant, key, { query: "review the PR" });
    expect(review.body.results).toEqual([]);
    expect(review.body.message).toContain("No tool matched");

    const put = await putSynonyms(tenant, key, { repo: ["repository"], PR: ["pull request"] });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ synonyms: { repo: ["repository"], PR: ["pull request"] } });

    const after = await search(tenant, key, { query: "show my repos", explain: true });
    expect(ids(after)[0]).toBe("github::list_repositories");
    expect(after.body.results[0].explain.terms).toContainEqual(expect.objectContaining({ via: "repo" }));
    expect(ids(await search(tenant, key, { query: "review the PR" }))[0]).toBe("github::get_pull_request");
  });

  it("reads back what was stored, replaces the map whole, and {} removes every synonym", async () => {
    const { tenant, key } = await tenantWithCatalog();
    expect((await call("GET", synonymsPath(tenant), { token: key })).body).toEqual({ synonyms: {} });
    await putSynonyms(tenant, key, { repo: ["repository"] });
    await putSynonyms(tenant, key, { pr: ["pull request"] });
    expect((await call("GET", synonymsPath(tenant), { token: key })).body).toEqual({
      synonyms: { pr: ["pull request"] },
    });
    expect(ids(await search(tenant, key, { query: "show my repos" }))).not.toContain("github::list_repositories");
    await putSynonyms(tenant, key, {});
    expect((await call("GET", synonymsPath(tenant), { token: key })).body).toEqual({ synonyms: {} });
    expect((await search(tenant, key, { query: "review the pr" })).body.results).toEqual([]);
  });

  it("refuses maps that could never work or are too large, and a refusal changes nothing", async () => {
    const { tenant, key } = await tenantWithCatalog();
    await putSynonyms(tenant, key, { repo: ["repository"] });
    const refusals: [unknown, string][] = [
      [{ the: ["repository"] }, "no searchable words"],
      [{ repo: ["of the"] }, "no searchable words"],
      [{ repo: [] }, "synonyms.repo"],
      [{ repo: "repository" }, "synonyms.repo"],
      [{ repo: Array.from({ length: 11 }, (_, i) => `word${i}`) }, "synonyms.repo"],
      [{ repo: ["one two three four five"] }, "limit is 4"],
      [{ ["x".repeat(65)]: ["repository"] }, "the limit is 64"],
      [Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`key${i}`, ["value"]])), "at most 500 synonym keys"],
    ];
    for (const [synonyms, message] of refusals) {
      const r = await putSynonyms(tenant, key, synonyms);
      expect(r.status, JSON.stringify(synonyms).slice(0, 80)).toBe(400);
      expect(r.body.error).toBe("invalid-request");
      expect(r.text).toContain(message);
    }
    const extra = await call("PUT", synonymsPath(tenant), { token: key, body: { synonyms: {}, surprise: 1 } });
    expect(extra.status).toBe(400);
    expect((await call("GET", synonymsPath(tenant), { token: key })).body).toEqual({
      synonyms: { repo: ["repository"] },
    });
  });

  it("needs the admin scope", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const searchKey = await createKey(tenant, ["search", "write"]);
    expect((await call("GET", synonymsPath(tenant), { token: searchKey })).status).toBe(403);
    expect((await putSynonyms(tenant, searchKey, { repo: ["repository"] })).status).toBe(403);
    expect((await putSynonyms(tenant, key, { repo: ["repository"] })).status).toBe(200);
  });

  it("apply to their own tenant only, and survive the object's eviction", async () => {
    const a = await tenantWithCatalog();
    const b = await tenantWithCatalog();
    await putSynonyms(a.tenant, a.key, { repo: ["repository"] });
    expect(ids(await search(b.tenant, b.key, { query: "show my repos" }))).not.toContain("github::list_repositories");
    expect((await call("GET", synonymsPath(a.tenant), { token: b.key })).status).toBe(403); // a key of another tenant
    await evictDurableObject(env.TENANTS.get(env.TENANTS.idFromName(a.tenant)));
    expect(ids(await search(a.tenant, a.key, { query: "show my repos" }))[0]).toBe("github::list_repositories");
  });
});

describe("keywords", () => {
  it("a query that misses a tool without keywords finds it once the tool carries them", async () => {
    const { tenant, key } = await tenantWithCatalog();
    const charge = { server: "pay", ...mcpTool("create_charge", "Charge a customer's card") };
    expect((await upsert(tenant, key, [charge])).status).toBe(200);
    const query = { query: "billing invoices", explain: true };
    expect(ids(await search(tenant, key, query))).not.toContain("pay::create_charge");

    expect((await upsert(tenant, key, [{ ...charge, keywords: ["billing", "invoice"] }])).body).toMatchObject({
      updated: 1,
    });
    const r = await search(tenant, key, query);
    expect(ids(r)[0]).toBe("pay::create_charge");
    expect(r.body.results[0].explain.fields.keywords).toHaveLength(2); // billing, invoice
  });
});
