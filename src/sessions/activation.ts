/**
 * Activation: the tools a search returns join the session's active set inside the search itself,
 * in the same storage transaction that answers it, so a tool the model just found is callable in
 * its very next step (never a step late, as when a hook after the step does it).
 */

export interface ActivationPlan {
  /** Result ids to add to the session's activated set (not there yet), in result order. */
  record: string[];
  /** The ones the model could not call before this search (neither activated nor always loaded). */
  newlyActive: string[];
}

export function planActivation(
  resultIds: readonly string[],
  activated: ReadonlySet<string>,
  alwaysLoaded: ReadonlySet<string>,
): ActivationPlan {
  const record = [...new Set(resultIds)].filter((id) => !activated.has(id));
  return { record, newlyActive: record.filter((id) => !alwaysLoaded.has(id)) };
}
