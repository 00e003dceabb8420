/**
 * The stand-in vendors check the model's tool arguments against the tool's JSON Schema, as the
 * real APIs' strict tool use would: a script that sends arguments the real tool rejects fails.
 */
import { Validator, type Schema } from "@cfworker/json-schema";

export function checkArguments(tool: string, schema: unknown, args: unknown): void {
  const result = new Validator(schema as Schema, "2020-12", false).validate(args);
  if (!result.valid)
    throw new Error(
      `script error: arguments for ${tool} do not match its input schema: ` +
        `${result.errors.map((e) => e.error).join("; ")}`,
    );
}
