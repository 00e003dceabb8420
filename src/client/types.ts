/**
 * The client's request and response types, derived from the zod schemas that validate requests
 * and generate /openapi.json: a field added to a schema shows up here without a second declaration.
 * Requests use the schemas' input side (defaults optional), responses their output side.
 *
 * Only types are imported, so the client carries none of the server's code at run time.
 */
import type { z } from "zod";
import type { ToolInputSchemas } from "../catalog/formats.ts";
import type { SettingsPatchSchema, SettingsSchema } from "../tenancy/settings.ts";
import type { ERROR_CODES } from "../errors.ts";
import type {
  CallToolResultSchema,
  createSessionBodySchema,
  deferredQuerySchema,
  DeferredListSchema,
  PlanRequestSchema,
  PlanResponseSchema,
  ResolveRequestSchema,
  ResolveResponseSchema,
  SessionSchema,
  setToolsBodySchema,
  SetToolsResultSchema,
  startTurnSchema,
  SuggestionSchema,
  ToolListSchema,
  ToolResultObjectSchema,
} from "../contract/session-schemas.ts";
import type {
  BudgetSchema,
  CatalogSchema,
  CreatedKeySchema,
  CreateKeySchema,
  CreateTenantSchema,
  ErrorSchema,
  FormatQuerySchema,
  KeyInfoSchema,
  KeyListSchema,
  PurgedSessionsSchema,
  listToolsQuerySchema,
  SearchResponseSchema,
  SearchResultSchema,
  searchRequestSchema,
  serverToolsBodySchema,
  TenantSchema,
  TokenFiguresSchema,
  toolBatchBodySchema,
  ToolBatchResultSchema,
  ToolDetailSchema,
  ToolPageSchema,
  ToolSummarySchema,
} from "../contract/schemas.ts";
import type { CatalogExportSchema, exportQuerySchema } from "../contract/export-schemas.ts";
import type {
  DoctorReportSchema,
  doctorQuerySchema,
  FindingSchema,
  UsageSchema,
  usageQuerySchema,
} from "../contract/console-schemas.ts";
import type {
  ForgottenSchema,
  LearnedPageSchema,
  learnedQuerySchema,
  LearnedToolSchema,
} from "../contract/learned-schemas.ts";

export type ErrorCode = (typeof ERROR_CODES)[number];
export type ErrorBody = z.output<typeof ErrorSchema>;

export type CreateTenantRequest = z.input<typeof CreateTenantSchema>;
export type Tenant = z.output<typeof TenantSchema>;
export type Settings = z.output<typeof SettingsSchema>;
export type SettingsPatch = z.input<typeof SettingsPatchSchema>;
export type LearnedTool = z.output<typeof LearnedToolSchema>;
export type LearnedPage = z.output<typeof LearnedPageSchema>;
export type LearnedQuery = Omit<z.input<ReturnType<typeof learnedQuerySchema>>, "tool_id">;
export type LearnedForgotten = z.output<typeof ForgottenSchema>;

export type CreateKeyRequest = z.input<typeof CreateKeySchema>;
export type KeyInfo = z.output<typeof KeyInfoSchema>;
export type KeyList = z.output<typeof KeyListSchema>;
export type PurgedSessions = z.output<typeof PurgedSessionsSchema>;
export type CreatedKey = z.output<typeof CreatedKeySchema>;

/** A tool in any accepted input format (MCP, Anthropic, OpenAI Chat, OpenAI Responses). */
export type ToolInput = z.input<ToolInputSchemas["any"]>;
export type ToolBatch = z.input<ReturnType<typeof toolBatchBodySchema>>;
export type ServerTools = z.input<ReturnType<typeof serverToolsBodySchema>>;
export type ToolBatchResult = z.output<typeof ToolBatchResultSchema>;

export type ListToolsQuery = z.input<ReturnType<typeof listToolsQuerySchema>>;
export type ToolSummary = z.output<typeof ToolSummarySchema>;
export type ToolPage = z.output<typeof ToolPageSchema>;
export type FormatQuery = z.input<typeof FormatQuerySchema>;
export type OutputFormat = z.output<typeof FormatQuerySchema>["format"];
export type ToolDetail = z.output<typeof ToolDetailSchema>;
export type Catalog = z.output<typeof CatalogSchema>;
export type TokenFigures = z.output<typeof TokenFiguresSchema>;
export type DeferredQuery = z.input<ReturnType<typeof deferredQuerySchema>>;
export type DeferredList = z.output<typeof DeferredListSchema>;

export type SearchRequest = z.input<ReturnType<typeof searchRequestSchema>>;
export type SearchResult = z.output<typeof SearchResultSchema>;
export type SearchResponse = z.output<typeof SearchResponseSchema>;
export type Budget = z.output<typeof BudgetSchema>;

export type CreateSessionRequest = z.input<ReturnType<typeof createSessionBodySchema>>;
export type Session = z.output<typeof SessionSchema>;
export type StartTurnRequest = z.input<ReturnType<typeof startTurnSchema>>;
export type Suggestion = z.output<typeof SuggestionSchema>;
export type SessionToolList = z.output<typeof ToolListSchema>;
export type SetSessionToolsRequest = z.input<ReturnType<typeof setToolsBodySchema>>;
export type SetSessionToolsResult = z.output<typeof SetToolsResultSchema>;
export type ResolveRequest = z.input<typeof ResolveRequestSchema>;
export type ResolvedTool = z.output<typeof ResolveResponseSchema>;

export type PlanRequest = z.input<typeof PlanRequestSchema>;
export type Plan = z.output<typeof PlanResponseSchema>;
export type CallToolResult = z.input<typeof CallToolResultSchema>;
export type ToolResultObject = z.output<typeof ToolResultObjectSchema>;

export type CatalogExportQuery = z.input<ReturnType<typeof exportQuerySchema>>;
export type CatalogExport = z.output<typeof CatalogExportSchema>;
export type ExportFormat = CatalogExport["format"];

export type DoctorQuery = z.input<ReturnType<typeof doctorQuerySchema>>;
export type DoctorReport = z.output<typeof DoctorReportSchema>;
export type Finding = z.output<typeof FindingSchema>;
export type UsageQuery = z.input<ReturnType<typeof usageQuerySchema>>;
export type Usage = z.output<typeof UsageSchema>;
