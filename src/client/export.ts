/** Assembling the pages of GET .../catalog/export into one `tools` array. */
import type { CatalogExport } from "./types.ts";

type ExportItem = CatalogExport["tools"][number];

/**
 * Concatenates the pages' `tools`. A page ends at a server boundary unless one server alone fills
 * it; such a server's OpenAI namespace then appears on each page under the same name, and is
 * merged back into one here (its functions in page order).
 */
export function mergeExportPages(pages: readonly Pick<CatalogExport, "tools">[]): ExportItem[] {
  const out: ExportItem[] = [];
  const namespaces = new Map<string, { tools: unknown[] }>();
  for (const item of pages.flatMap((p) => p.tools)) {
    if (item.type === "namespace" && typeof item.name === "string" && Array.isArray(item.tools)) {
      const seen = namespaces.get(item.name);
      if (seen) {
        seen.tools.push(...item.tools);
        continue;
      }
      const copy = { ...item, tools: [...item.tools] };
      namespaces.set(item.name, copy);
      out.push(copy);
    } else {
      out.push(item);
    }
  }
  return out;
}
