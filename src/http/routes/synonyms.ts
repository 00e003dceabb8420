/** A tenant's synonym map (admin scope): read it, or replace it whole. Applied at query time. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ServiceConfig } from "../../config/env.ts";
import { synonymsSchema } from "../../tenancy/synonyms.ts";
import type { AppEnv } from "../context.ts";
import { expectOk } from "../errors.ts";
import { errorResponses, jsonBody, jsonContent, requires } from "../openapi.ts";
import { TenantIdSchema } from "../../contract/schemas.ts";

export function registerSynonymRoutes(app: OpenAPIHono<AppEnv>, config: ServiceConfig): void {
  const map = synonymsSchema(config.limits);
  const body = z.strictObject({ synonyms: map }).meta({ id: "SynonymsBody" });
  const params = z.object({ tenant: TenantIdSchema });

  const getRoute = createRoute({
    method: "get",
    path: "/v1/tenants/{tenant}/synonyms",
    tags: ["settings"],
    summary: "Read the tenant's synonym map (admin scope)",
    security: requires("admin"),
    request: { params },
    responses: {
      200: jsonContent(body, "The synonym map ({} when none)"),
      ...errorResponses("forbidden", "not-found"),
    },
  });

  const putRoute = createRoute({
    method: "put",
    path: "/v1/tenants/{tenant}/synonyms",
    tags: ["settings"],
    summary: "Replace the tenant's synonym map (admin scope); {} removes every synonym",
    description:
      "Searches that contain a key (a word or phrase, compared after the same analysis as tool text: case, plurals " +
      "and word forms do not matter) are also searched for each of the key's expansions, at full weight. `explain` " +
      "shows which terms a synonym added (`via`). Takes effect from the next search; the catalog is not re-indexed.",
    security: requires("admin"),
    request: { params, body: jsonBody(body) },
    responses: { 200: jsonContent(body, "The synonym map now in force"), ...errorResponses("forbidden", "not-found") },
  });

  app.openapi(getRoute, async (c) =>
    c.json({ synonyms: expectOk(await c.get("tenant").getSynonyms(c.get("caller"))) }, 200),
  );

  app.openapi(putRoute, async (c) => {
    const { synonyms } = c.req.valid("json");
    return c.json({ synonyms: expectOk(await c.get("tenant").putSynonyms(c.get("caller"), synonyms)) }, 200);
  });
}
