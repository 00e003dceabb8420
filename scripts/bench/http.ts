export interface HttpFigures {
  search_p50_ms: number;
  search_p99_ms: number;
  healthz_p50_ms: number;
  healthz_p99_ms: number;
  cold_first_search_ms: number;
  [extra: string]: number | string;
}
export async function runHttpBench(): Promise<HttpFigures> {
  throw new Error("todo");
}
