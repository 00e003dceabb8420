/**
 * Whether tool search is worth turning on for a catalog, as Copilot CLI and Kiro decide it.
 *
 * Only deferrable tools count: always-loaded tools are sent either way. Below `min_tools`
 * deferrable tools the extra search step costs more than it saves. Otherwise search is on when
 * the deferrable definitions take more than `min_pct` % of the context window OR more than
 * `min_tokens` tokens. A threshold of 0 is exceeded by any definition, so 0/0 forces search on
 * (as long as there is something to defer).
 */

export interface PlanThresholds {
  min_tools: number;
  min_pct: number;
  min_tokens: number;
}

type PlanReason =
  | "nothing-to-defer"
  | "below-min-tools"
  | "forced"
  | "over-min-pct"
  | "over-min-tokens"
  | "under-thresholds";

export interface PlanDecision {
  enabled: boolean;
  reason: PlanReason;
  message: string;
}

export interface PlanInput {
  contextWindow: number;
  deferredTools: number;
  /** Tokens of the deferrable tools' full definitions. */
  deferredTokens: number;
}

export function decidePlan(input: PlanInput, t: PlanThresholds): PlanDecision {
  const { contextWindow, deferredTools, deferredTokens } = input;
  const pct = contextWindow > 0 ? (deferredTokens / contextWindow) * 100 : Infinity;
  const pctText = `${round2(pct)} % of the ${contextWindow}-token context window`;
  if (deferredTools === 0) {
    return {
      enabled: false,
      reason: "nothing-to-defer",
      message: "Every tool is always loaded (or the catalog is empty): there is nothing for tool search to defer.",
    };
  }
  if (t.min_pct === 0 && t.min_tokens === 0) {
    return {
      enabled: true,
      reason: "forced",
      message:
        `min_pct and min_tokens are both 0, which forces tool search on for the ${deferredTools} ` +
        `deferrable tools.`,
    };
  }
  if (deferredTools < t.min_tools) {
    return {
      enabled: false,
      reason: "below-min-tools",
      message:
        `Only ${deferredTools} deferrable tools (fewer than min_tools ${t.min_tools}): load them ` +
        `all; a search step would cost more than it saves.`,
    };
  }
  if (deferredTokens > (contextWindow * t.min_pct) / 100) {
    return {
      enabled: true,
      reason: "over-min-pct",
      message:
        `The ${deferredTools} deferrable definitions take ${deferredTokens} tokens, ${pctText}, ` +
        `more than min_pct ${t.min_pct} %.`,
    };
  }
  if (deferredTokens > t.min_tokens) {
    return {
      enabled: true,
      reason: "over-min-tokens",
      message:
        `The ${deferredTools} deferrable definitions take ${deferredTokens} tokens, more than ` +
        `min_tokens ${t.min_tokens}.`,
    };
  }
  return {
    enabled: false,
    reason: "under-thresholds",
    message:
      `The ${deferredTools} deferrable definitions take ${deferredTokens} tokens (${pctText}): ` +
      `under both min_pct ${t.min_pct} % and min_tokens ${t.min_tokens}, so loading them all ` +
      `is cheaper.`,
  };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
