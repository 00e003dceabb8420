/**
 * A seeded generator of tool catalogs that look like real MCP catalogs: servers of 5-40 tools,
 * names in every style servers use (snake_case, camelCase, PascalCase, kebab-case, dotted,
 * SCREAMING_SNAKE with a server prefix, `mcp__server__tool`), descriptions of one to four
 * sentences over a Zipf-distributed vocabulary with a long tail of product names and identifiers,
 * and JSON Schemas with nested objects and arrays. Tool sizes (~600 bytes) match the real sets.
 */
import { int, pick, seeded, zipf, type Random } from "../random.ts";

export interface BenchTool {
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const VERBS = (
  "get list create update delete search send fetch add remove set find check run start stop upload download export " +
  "import sync generate convert validate calculate schedule cancel archive publish share move copy rename merge " +
  "close open assign invite approve reject translate summarize analyze query subscribe track monitor refresh " +
  "retrieve lookup resolve estimate book reserve pay refund transfer notify compare count enable disable restore"
).split(" ");

const OBJECTS = (
  "issue|pull request|repository|branch|commit|file|folder|document|spreadsheet|message|channel|thread|user|team|" +
  "project|task|ticket|invoice|payment|customer|order|product|event|calendar|meeting|contact|lead|deal|campaign|" +
  "email|template|report|dashboard|metric|alert|incident|deployment|container|cluster|database|table|record|" +
  "webhook|token|secret|api key|certificate|domain|dns record|bucket|object|image|video|playlist|song|album|artist|" +
  "weather forecast|flight|hotel room|stock quote|exchange rate|recipe|note|page|comment|label|milestone|release|" +
  "workflow|job|pipeline|build|log|trace|span|snapshot|backup|volume|instance|function|queue|topic|subscription|" +
  "plan|coupon|discount|shipment|package|address|location|route|map|translation|transcript|summary|chart|form|" +
  "survey|response|question|answer|article|post|story|tweet|profile|follower|group|role|permission|policy|" +
  "audit log|session|device|sensor|reading|reminder|todo|board|card|sprint|epic|worklog|employee|candidate|" +
  "job posting|expense|receipt|budget|forecast|account|balance|transaction|portfolio|order book|vulnerability|scan|" +
  "finding|package version|dependency|license|quota|usage|bill|credit|vector|embedding|index|model|dataset"
).split("|");

const ADJECTIVES = (
  "current latest all recent active archived pending open closed public private shared default custom new existing " +
  "scheduled failed successful draft final monthly daily weekly upcoming past nearby available detailed basic raw"
).split(" ");

/** General words of descriptions, most common first (their rank drives the Zipf draw). */
const COMMON = (
  "the a of to and in for with by from on this that is returns use or an be can given specified optional required " +
  "id name data list value details information result results user format time date type status number string " +
  "object field fields filter query page limit response request api service account default if when not only " +
  "all each new by which other more first last based using its their will may are one two set key items url " +
  "text content body title description tags metadata created updated start end range total count size order " +
  "sort ascending descending include exclude match matching search term terms language country region city " +
  "currency amount price cost email phone code message error retry timeout version path owner parent child " +
  "entries entry record records summary report level priority category categories source target destination " +
  "format json csv pdf html markdown image file files link links reference identifier unique custom display"
).split(" ");

const SERVER_WORDS = (
  "github gitlab slack jira linear notion confluence asana trello stripe shopify salesforce hubspot zendesk intercom " +
  "google-drive gmail calendar sheets dropbox box onedrive outlook teams zoom discord twilio sendgrid mailchimp " +
  "aws gcp azure cloudflare vercel netlify docker kubernetes postgres mysql mongodb redis elastic snowflake bigquery " +
  "datadog sentry pagerduty grafana prometheus splunk okta auth0 spotify youtube twitter reddit weather maps flights " +
  "hotels finance crypto news translate calendly figma miro airtable monday clickup quickbooks xero paypal plaid"
).split(" ");

const SYLLABLES = "ka ze ro mi tu vo la ne xi qua bri sto fen dal mor pix gro tav lin shu zor ep ix on ar ul".split(
  " ",
);

const PARAM_BASES = (
  "limit cursor page per_page query start_date end_date owner repo channel_id text title body status tags sort " +
  "order include_archived format fields filter timezone locale currency amount email user_id project_id " +
  "workspace_id since until max_results offset language region country city latitude longitude radius units " +
  "verbose dry_run force recursive path"
).split(" ");

type Style = (words: string[], server: string) => string;

const STYLES: Style[] = [
  (w) => w.join("_"),
  (w) => w[0]! + w.slice(1).map(cap).join(""),
  (w) => w.map(cap).join(""),
  (w) => w.join("-"),
  (w) => `${w.slice(1).join("_") || w[0]}.${w[0]}`,
  (w, s) => `${s.replace(/-/g, "_").toUpperCase()}_${w.join("_").toUpperCase()}`,
  (w, s) => `mcp__${s.replace(/-/g, "_")}__${w.join("_")}`,
  (w, s) => `${s.replace(/-/g, "_")}_${w.join("_")}`,
];

function cap(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function words(phrase: string): string[] {
  return phrase.split(" ");
}

export interface SyntheticOptions {
  tools: number;
  seed?: number;
}

/** `tools` synthetic tools, the same for the same seed. */
export function syntheticCatalog({ tools, seed = 42 }: SyntheticOptions): BenchTool[] {
  const rand = seeded(seed);
  const tailSize = Math.max(8_000, tools * 2);
  const tail = Array.from({ length: tailSize }, (_, i) => pseudoWord(seeded(seed * 7919 + i)));
  const drawTail = zipf(tail.length, 0.75);
  const drawCommon = zipf(COMMON.length, 1);
  const drawVerb = zipf(VERBS.length, 1);
  const drawObject = zipf(OBJECTS.length, 0.8);

  const out: BenchTool[] = [];
  const usedServers = new Set<string>();
  while (out.length < tools) {
    const server = serverName(rand, tail, drawTail, usedServers);
    const product = server.split(/[-_]/).map(cap).join(" ");
    const style = pick(rand, STYLES);
    const size = Math.min(int(rand, 5, 40), tools - out.length);
    const names = new Set<string>();
    for (let i = 0; i < size; i++) {
      const verb = VERBS[drawVerb(rand)]!;
      const object = OBJECTS[drawObject(rand)]!;
      const adjective = rand() < 0.25 ? pick(rand, ADJECTIVES) : null;
      const nameWords = [
        verb,
        ...(adjective ? [adjective] : []),
        ...words(object).map((w) => (rand() < 0.4 ? `${w}s` : w)),
      ];
      let name = style(nameWords, server);
      for (let n = 2; names.has(name); n++) name = `${style(nameWords, server)}${n}`;
      names.add(name);
      const camel = style === STYLES[1] || style === STYLES[2];
      out.push({
        server,
        name,
        description: description(
          rand,
          { verb, object, adjective, product },
          () => COMMON[drawCommon(rand)]!,
          () => tail[drawTail(rand)]!,
        ),
        inputSchema: schema(
          rand,
          object,
          camel,
          () => (rand() < 0.1 ? tail[drawTail(rand)]! : COMMON[drawCommon(rand)]!),
          0,
        ),
      });
    }
  }
  return out;
}

function pseudoWord(rand: Random): string {
  let word = "";
  for (let n = int(rand, 2, 4); n > 0; n--) word += pick(rand, SYLLABLES);
  return word;
}

function serverName(rand: Random, tail: string[], drawTail: (r: Random) => number, used: Set<string>): string {
  for (;;) {
    const base = rand() < 0.3 ? pick(rand, SERVER_WORDS) : tail[drawTail(rand)]!;
    const name = rand() < 0.5 ? base : `${base}${pick(rand, ["-api", "-mcp", "_tools", "-cloud", "-server", ""])}`;
    const unique = used.has(name) ? `${name}-${int(rand, 2, 9999)}` : name;
    if (!used.has(unique)) {
      used.add(unique);
      return unique;
    }
  }
}

interface Gist {
  verb: string;
  object: string;
  adjective: string | null;
  product: string;
}

function description(rand: Random, g: Gist, common: () => string, rare: () => string): string {
  const thing = `${g.adjective ? `${g.adjective} ` : ""}${g.object}`;
  const sentences = [
    pick(rand, [
      `${cap(g.verb)} ${pick(rand, ["a", "the", "one or more"])} ${thing} in ${g.product}.`,
      `${cap(g.verb)}s ${thing}s for the authenticated ` +
        `${pick(rand, ["user", "account", "workspace", "organization"])}.`,
      `Use this tool to ${g.verb} ${thing}s stored in ${g.product}.`,
      `${cap(g.verb)} ${thing} by id.`,
    ]),
  ];
  const extra = int(rand, 0, 3);
  for (let i = 0; i < extra; i++) {
    const filler = Array.from({ length: int(rand, 4, 12) }, () => (rand() < 0.3 ? rare() : common()));
    sentences.push(`${cap(filler.join(" "))}.`);
  }
  if (rand() < 0.5) {
    const what = pick(rand, ["a list of", "the", "a paginated list of", "details of the"]);
    const how = pick(rand, ["as JSON", "with their ids", "matching the filters", ""]);
    sentences.push(`${`Returns ${what} ${g.object}s ${how}`.trim()}.`);
  }
  return sentences.join(" ");
}

function schema(
  rand: Random,
  object: string,
  camel: boolean,
  common: () => string,
  depth: number,
): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const idName = `${object.replace(/ /g, "_")}_id`;
  const count = depth === 0 ? int(rand, 0, 7) : int(rand, 1, 4);
  for (let i = 0; i < count; i++) {
    const base = i === 0 && depth === 0 ? idName : pick(rand, PARAM_BASES);
    const name = camel ? base.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()) : base;
    if (name in properties) continue;
    const roll = rand();
    const prose = Array.from({ length: int(rand, 3, 10) }, common).join(" ");
    if (roll < 0.08 && depth < 2) {
      properties[name] = {
        type: "object",
        description: `${cap(base.replace(/_/g, " "))} options: ${prose}.`,
        ...schema(rand, object, camel, common, depth + 1),
      };
    } else if (roll < 0.18) {
      properties[name] = {
        type: "array",
        description: `List of ${base.replace(/_/g, " ")} values.`,
        items: { type: "string" },
      };
    } else if (roll < 0.28) {
      properties[name] = {
        type: "string",
        enum: ["asc", "desc", "all", "open", "closed"].slice(0, int(rand, 2, 5)),
        description: `${cap(prose)}.`,
      };
    } else {
      properties[name] = {
        type: pick(rand, ["string", "string", "integer", "boolean", "number"]),
        description: `The ${base.replace(/_/g, " ")}: ${prose}.`,
      };
    }
    if (i === 0 || rand() < 0.2) required.push(name);
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

/** The catalog's words by how many tools use them, for keyword queries that include common words. */
export function vocabularyByFrequency(tools: readonly BenchTool[], split: (text: string) => string[]): string[] {
  const df = new Map<string, number>();
  for (const t of tools) {
    for (const w of new Set(split(`${t.name} ${t.description}`))) df.set(w, (df.get(w) ?? 0) + 1);
  }
  return [...df.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
}
