/**
 * The built-in vocabulary of software capabilities: the words people and agents use for what tools do, against
 * the words tool catalogs use (abbreviations, synonyms across vendors' vocabularies, phrasal verbs), and the
 * names of known services.
 *
 * The data is in the Solr/Lucene synonyms.txt format, one file per domain under data/ (parse.ts describes the
 * format). It is compiled once, at module load, with the index's own analysis. Expansions are meant to be
 * searched at reduced weight: they reorder and rescue, never outvote the query's own words. Rules are not
 * transitive, and no service name ever expands to another service, so that a request for a service the catalog
 * lacks stays a miss.
 *
 * THESAURUS_VERSION records the data: bump it (to the day of the change, `.2` on for another change that day)
 * whenever a data file changes, so that what depends on the expansions (explanations, stored results, benchmarks)
 * can tell which data it saw.
 */
import { ASK_AI } from "./data/ask-ai.ts";
import { ASK_BUSINESS } from "./data/ask-business.ts";
import { ASK_DATA } from "./data/ask-data.ts";
import { ASK_DEV } from "./data/ask-dev.ts";
import { ASK_FILES } from "./data/ask-files.ts";
import { ASK_LIFE } from "./data/ask-life.ts";
import { ASK_MEDIA } from "./data/ask-media.ts";
import { ASK_MONEY } from "./data/ask-money.ts";
import { ASK_OPS } from "./data/ask-ops.ts";
import { ASK_SCIENCE } from "./data/ask-science.ts";
import { ASK_WEB } from "./data/ask-web.ts";
import { ASK_WORK } from "./data/ask-work.ts";
import { BROWSER } from "./data/browser.ts";
import { BUSINESS } from "./data/business.ts";
import { CALENDAR } from "./data/calendar.ts";
import { CLOUD } from "./data/cloud.ts";
import { CODE } from "./data/code.ts";
import { COMMERCE } from "./data/commerce.ts";
import { CONTAINERS } from "./data/containers.ts";
import { DATA } from "./data/data.ts";
import { DELIVERY } from "./data/delivery.ts";
import { DEVTOOLS } from "./data/devtools.ts";
import { DOCUMENTS } from "./data/documents.ts";
import { EMAIL } from "./data/email.ts";
import { FILES } from "./data/files.ts";
import { FINANCE } from "./data/finance.ts";
import { GENERAL } from "./data/general.ts";
import { GIT } from "./data/git.ts";
import { LANGUAGE } from "./data/language.ts";
import { MAPS } from "./data/maps.ts";
import { MEDIA } from "./data/media.ts";
import { MESSAGING } from "./data/messaging.ts";
import { OBSERVABILITY } from "./data/observability.ts";
import { OFFICE } from "./data/office.ts";
import { SERVICES_LINES } from "./data/services.ts";
import { SYSTEM } from "./data/system.ts";
import { TIME } from "./data/time.ts";
import { TRAVEL } from "./data/travel.ts";
import { WEATHER } from "./data/weather.ts";
import { WEB } from "./data/web.ts";
import { WORK } from "./data/work.ts";
import {
  type CompiledThesaurus,
  compileRules,
  parseServices,
  parseSynonyms,
  type ThesaurusProblem,
  type ThesaurusRule,
} from "./parse.ts";

export type { CompiledThesaurus } from "./parse.ts";
export { compileRules, parseServices, parseSynonyms } from "./parse.ts";

/** The version of the built-in data (a date, `.2` on for a later change that day): bump it with every data change. */
export const THESAURUS_VERSION = "2026-12-08.2";

/** The rule lines of each domain, by the domain's name (the `source` of its rules and problems). */
export const BUILTIN_LINES: Readonly<Record<string, readonly string[]>> = {
  general: GENERAL,
  git: GIT,
  code: CODE,
  devtools: DEVTOOLS,
  work: WORK,
  messaging: MESSAGING,
  email: EMAIL,
  calendar: CALENDAR,
  office: OFFICE,
  documents: DOCUMENTS,
  files: FILES,
  system: SYSTEM,
  containers: CONTAINERS,
  cloud: CLOUD,
  delivery: DELIVERY,
  observability: OBSERVABILITY,
  data: DATA,
  commerce: COMMERCE,
  business: BUSINESS,
  web: WEB,
  browser: BROWSER,
  maps: MAPS,
  weather: WEATHER,
  time: TIME,
  finance: FINANCE,
  language: LANGUAGE,
  media: MEDIA,
  travel: TRAVEL,
  "ask-files": ASK_FILES,
  "ask-dev": ASK_DEV,
  "ask-work": ASK_WORK,
  "ask-data": ASK_DATA,
  "ask-web": ASK_WEB,
  "ask-business": ASK_BUSINESS,
  "ask-life": ASK_LIFE,
  "ask-money": ASK_MONEY,
  "ask-media": ASK_MEDIA,
  "ask-science": ASK_SCIENCE,
  "ask-ops": ASK_OPS,
  "ask-ai": ASK_AI,
};

/** The built-in data, parsed and compiled. */
export interface Builtin {
  /** Every rule as written, one per source member (an equivalence line gives one per member). */
  rules: readonly ThesaurusRule[];
  /** The rules compiled for query time: by the first analysed term of their key. */
  thesaurus: CompiledThesaurus;
  /**
   * What could not be used (malformed lines, sides that analyse to nothing, no-op or repeated expansions). Always
   * empty in a release: the thesaurus tests fail otherwise. Such lines are skipped, never fatal.
   */
  problems: readonly ThesaurusProblem[];
  /** Names of known services, one group per product (`["github", "gh"]`), lower case, as written. */
  serviceGroups: readonly (readonly string[])[];
  /** Every known service name and alias, lower case, as written (multi-word names are phrases). */
  services: readonly string[];
}

let loaded: Builtin | null = null;

/**
 * The built-in data, parsed and compiled on first use (some 50 ms): an isolate that never searches, or serves
 * only other routes, never pays for it.
 */
export function builtin(): Builtin {
  if (loaded) return loaded;
  const parsed = Object.entries(BUILTIN_LINES).map(([source, lines]) => parseSynonyms(lines, source));
  const rules = parsed.flatMap((p) => p.rules);
  const compiled = compileRules(rules);
  const services = parseServices(SERVICES_LINES);
  loaded = {
    rules,
    thesaurus: compiled.thesaurus,
    problems: [...parsed.flatMap((p) => p.problems), ...compiled.problems, ...services.problems],
    serviceGroups: services.groups,
    services: services.groups.flat(),
  };
  return loaded;
}
