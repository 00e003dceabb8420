/**
 * The parts of a tool that search scores separately. Named with the tool, not in search/, because the API names them
 * too: per-field weights in a tenant's settings and the fields of an `explain`. search/ builds one text per field.
 */
export const FIELDS = ["name", "server", "description", "params", "keywords"] as const;
export type Field = (typeof FIELDS)[number];
