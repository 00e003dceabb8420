/**
 * Charts, drawn by uPlot (one small, well-kept library, bundled into the console's script and served by the Worker).
 * Each chart is a figure with a caption, a text summary for screen readers and its data as a table, so nothing is
 * only a picture. Colours come from the page's CSS variables, which follow the system's light or dark theme.
 */
import uPlot from "uplot";
import { fmt, h, table } from "./dom.ts";

export interface Series {
  label: string;
  /** null: no value (a share of nothing), drawn as a gap. */
  values: (number | null)[];
  /** A CSS variable of console.css (`--chart-1`). */
  color: string;
  /** Draw as a line on the right-hand axis (a share, 0..1) instead of bars. */
  share?: boolean;
}

function css(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** Re-sizes the chart with the box that holds it (narrow screens, window changes). */
function fit(holder: HTMLElement, plot: uPlot, height: number): void {
  const resize = () => plot.setSize({ width: Math.max(240, holder.clientWidth), height });
  new ResizeObserver(resize).observe(holder);
  requestAnimationFrame(resize);
}

/**
 * Bars per category (servers, plan rows, days), with a share as a line on its own axis when a series says so. With
 * several bar series, `stacked` must be set: each is drawn on top of the previous ones (their sums), parts of a whole.
 */
export function barChart(
  caption: string,
  categories: string[],
  series: Series[],
  options: { stacked?: boolean; unit?: string; height?: number; summary: string },
): HTMLElement {
  const height = options.height ?? 260;
  const figure = h("figure", { class: "chart" }, h("figcaption", {}, caption));
  const holder = h("div", { role: "img", "aria-label": options.summary });
  figure.append(holder);
  const x = categories.map((_, i) => i);
  const step = Math.ceil(categories.length / 16);
  const bars = series.filter((s) => !s.share);
  const stacked = options.stacked
    ? bars.map((_, i) =>
        categories.map((__, c) => bars.slice(0, i + 1).reduce((sum, s) => sum + (s.values[c] ?? 0), 0)),
      )
    : bars.map((s) => s.values);
  // Stacked: the largest sum is drawn first, each smaller one over it.
  const order = options.stacked ? bars.map((_, i) => bars.length - 1 - i) : bars.map((_, i) => i);
  const barSeries: uPlot.Series[] = order.map((i) => ({
    label: bars[i]!.label,
    stroke: css(bars[i]!.color),
    fill: css(bars[i]!.color),
    width: 0,
    points: { show: false },
    paths: uPlot.paths.bars!({ size: [0.7, 120], align: 0 }),
    value: (_u, v) => (v === null ? "" : fmt(v)),
  }));
  const shares = series.filter((s) => s.share);
  const plot = new uPlot(
    {
      width: 600,
      height,
      // The legend names the series; values are read from the table (live values would follow the pointer).
      legend: { show: true, live: false },
      cursor: { points: { show: false } },
      scales: {
        x: { time: false, range: [-0.6, Math.max(0.6, categories.length - 0.4)] },
        // From 0, and at least to 1 so that a range of zeros still has an axis of whole numbers.
        y: { range: (_u, _min, max) => uPlot.rangeNum(0, Math.max(1, max), 0.1, true) },
        share: { range: [0, 1] },
      },
      axes: [
        {
          stroke: css("--fg-muted"),
          grid: { show: false },
          splits: () => x,
          // Every label while they fit, else every n-th (30 days).
          values: (_u, splits) => splits.map((i) => (i % step === 0 ? shorten(categories[i] ?? "") : "")),
          rotate: categories.length > 6 ? -35 : 0,
          size: categories.length > 6 ? 90 : 40,
        },
        {
          stroke: css("--fg-muted"),
          grid: { stroke: css("--grid") },
          // Counts and tokens are whole numbers: ticks at whole steps only.
          incrs: WHOLE_STEPS,
          values: (_u, v) => v.map((n) => compact(n)),
          size: 56,
        },
        ...(shares.length
          ? [
              {
                scale: "share",
                side: 1,
                size: 56,
                stroke: css("--fg-muted"),
                grid: { show: false },
                values: (_u: uPlot, v: number[]) => v.map((n) => `${Math.round(n * 100)} %`),
              },
            ]
          : []),
      ],
      series: [
        { label: "" },
        ...barSeries,
        ...shares.map((s) => ({
          label: s.label,
          stroke: css(s.color),
          width: 2,
          scale: "share",
          value: (_u: uPlot, v: number | null) => (v === null ? "" : `${Math.round(v * 100)} %`),
        })),
      ],
    },
    [x, ...order.map((i) => stacked[i]!), ...shares.map((s) => s.values)] as uPlot.AlignedData,
    holder,
  );
  fit(holder, plot, height);
  figure.append(dataTable(caption, categories, series, options.unit));
  return figure;
}

function dataTable(caption: string, categories: string[], series: Series[], unit = ""): HTMLElement {
  return h(
    "details",
    { class: "chart-data" },
    h("summary", {}, "Data as a table"),
    table(
      caption,
      ["", ...series.map((s) => s.label)],
      categories.map((c, i) => [
        c,
        ...series.map((s) => {
          const v = s.values[i] ?? null;
          return v === null ? "–" : s.share ? `${fmt(v * 100, 1)} %` : `${fmt(v)}${unit}`;
        }),
      ]),
    ),
  );
}

const WHOLE_STEPS = [1, 2, 5]
  .flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7].map((p) => m * p))
  .sort((a, b) => a - b);

function shorten(label: string): string {
  return label.length > 18 ? `${label.slice(0, 17)}…` : label;
}

function compact(n: number): string {
  if (n >= 1_000_000) return `${fmt(n / 1_000_000, 1)}M`;
  if (n >= 10_000) return `${fmt(n / 1000, 0)}k`;
  return fmt(n);
}
