/**
 * The console: sign in with a tenant key (or the operator token and a tenant), then four pages, chosen by the URL's
 * fragment (#/playground, #/catalog, #/doctor, #/usage). It talks to the API over HTTP only, through the typed client;
 * the token stays in this tab's sessionStorage.
 */
import "./console.css";
import { catalogPage } from "./catalog.ts";
import { doctorPage } from "./doctor.ts";
import { h, show, status } from "./dom.ts";
import { playground } from "./playground.ts";
import { api, forget, keyTenant, problem, save, saved, type SignIn } from "./session.ts";
import { usagePage } from "./usage.ts";

const PAGES = [
  ["playground", "Playground"],
  ["catalog", "Catalog"],
  ["doctor", "Doctor"],
  ["usage", "Usage"],
] as const;
type Page = (typeof PAGES)[number][0];

const app = document.getElementById("app")!;
const TENANT_PATTERN = "[a-z0-9][a-z0-9\\-]{0,62}";

function page(): Page {
  const name = location.hash.replace(/^#\/?/, "");
  return PAGES.some(([p]) => p === name) ? (name as Page) : "playground";
}

function signInForm(message?: string): void {
  const key = h("input", {
    id: "key",
    name: "key",
    type: "password",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "key-help",
  });
  const tenant = h("input", {
    id: "tenant",
    name: "tenant",
    autocomplete: "off",
    spellcheck: "false",
    pattern: TENANT_PATTERN,
  });
  const error = h("div", { "aria-live": "assertive" }, message ? status(message, "error") : null);
  // POST, so that even without this script the key never lands in a URL.
  const form = h(
    "form",
    { class: "sign-in", method: "post", action: "/console" },
    h("h1", {}, "tool-search console"),
    h(
      "p",
      {},
      "For the people who keep the catalog: why a query finds what it finds, which tools are hard to find, " +
        "which searches fail.",
    ),
    h("div", { class: "field" }, h("label", { for: "key" }, "API key or operator token"), key),
    h(
      "p",
      { id: "key-help", class: "hint" },
      "Kept in this tab only (sessionStorage) and sent as a bearer header; never in a URL or cookie.",
    ),
    h(
      "div",
      { class: "field" },
      h("label", { for: "tenant" }, "Tenant (for the operator token; a key names its own)"),
      tenant,
    ),
    h("button", { type: "submit" }, "Sign in"),
    error,
  );
  key.addEventListener("input", () => {
    const own = keyTenant(key.value);
    if (own) tenant.value = own;
    tenant.disabled = own !== null;
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const signIn: SignIn = { token: key.value.trim(), tenant: keyTenant(key.value) ?? tenant.value.trim() };
    if (!signIn.tenant) {
      show(error, status("Name the tenant to open with the operator token.", "error"));
      tenant.focus();
      return;
    }
    open(signIn, error);
  });
  show(app, h("main", { id: "main" }, form));
  key.focus();
}

/** Opens `signIn` if its token reaches the tenant (one catalog read), else says why in `error`. */
function open(signIn: SignIn, error: HTMLElement): void {
  show(error, status("Signing in…"));
  api(signIn)
    .catalog()
    .then(
      () => {
        save(signIn);
        render();
      },
      (e) => show(error, status(`Could not open tenant ${signIn.tenant}: ${problem(e)}`, "error")),
    );
}

/** With the operator token, any tenant can be opened from the header. */
function tenantSwitch(signIn: SignIn): HTMLElement {
  const input = h("input", {
    id: "switch-tenant",
    name: "tenant",
    value: signIn.tenant,
    autocomplete: "off",
    spellcheck: "false",
    size: 14,
    pattern: TENANT_PATTERN,
  });
  const error = h("div", { class: "switch-error", "aria-live": "assertive" });
  const form = h(
    "form",
    { class: "switch", method: "post", action: "/console" },
    h("label", { for: "switch-tenant" }, "Tenant"),
    input,
    h("button", { type: "submit" }, "Open"),
    error,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    open({ token: signIn.token, tenant: input.value.trim() }, error);
  });
  return form;
}

function render(): void {
  const signIn = saved();
  if (!signIn) {
    signInForm();
    return;
  }
  const current = page();
  const main = h("main", { id: "main", tabindex: "-1" });
  const signOut = h("button", { type: "button", class: "link" }, "Sign out");
  signOut.addEventListener("click", () => {
    forget();
    location.hash = "";
    signInForm();
  });
  // The skip link moves focus to the page's content; the fragment stays the page's.
  const skip = h("a", { class: "skip", href: "#main" }, "Skip to content");
  skip.addEventListener("click", (event) => {
    event.preventDefault();
    main.focus();
  });
  const operator = keyTenant(signIn.token) === null;
  show(
    app,
    skip,
    h(
      "header",
      {},
      h("span", { class: "brand" }, "tool-search"),
      h(
        "nav",
        { "aria-label": "Pages" },
        ...PAGES.map(([p, label]) =>
          h("a", { href: `#/${p}`, ...(p === current ? { "aria-current": "page" } : {}) }, label),
        ),
      ),
      operator ? tenantSwitch(signIn) : h("span", { class: "who" }, `tenant ${signIn.tenant}`),
      signOut,
    ),
    main,
  );
  const client = api(signIn);
  if (current === "playground") playground(main, client);
  else if (current === "catalog") void catalogPage(main, client);
  else if (current === "doctor") void doctorPage(main, client);
  else usagePage(main, client);
  document.title = `${PAGES.find(([p]) => p === current)![1]} · tool-search console`;
}

window.addEventListener("hashchange", render);
try {
  render();
} catch (e) {
  show(app, status(problem(e), "error"));
}
