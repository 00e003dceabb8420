/**
 * The parts of a tool that search scores separately. Named with the tool, not in search/, because the API names them
 * too: per-field weights in a tenant's settings and the fields of an `explain`. search/ builds one text per field.
 */
export const FIELDS = ["name", "server", "description", "params", "keywords"] as const;
export type Field = (typeof FIELDS)[number];

/**
 * Every field a search scores: the tool's own text (FIELDS), and `usage`, the words of past searches that ended in
 * the tool being used (learned from use, see search/learning.ts). `usage` is not part of a tool's definition.
 */
export const SCORED_FIELDS = [...FIELDS, "usage"] as const;
export type ScoredField = (typeof SCORED_FIELDS)[number];
