import { useEffect, type ComponentType, type RefObject } from "react";

// swagger-ui (the /docs viewer) fails WCAG 2.1 AA in ways its own options cannot change (issue 26; axe-core found 230
// violations on the page): the path in every operation's header is a link inside the header's button, form controls
// have no name, the Authorize dialog's close button is an unnamed icon, the per-scheme buttons are named other than
// their text, code boxes that scroll take no keyboard focus, and the Authorize dialog is a plain box that neither
// takes nor gives back focus. What can be fixed from outside is fixed here, in two ways: a plugin where swagger-ui
// lets one component be wrapped (the operation path), and otherwise by naming what it renders, once it is in the
// page. Its colours are fixed in docs-page.css. The defects stay in swagger-ui itself (5.35): an upgrade that changes
// its markup is caught by e2e/tests/axe.spec.ts, which scans /docs and its open states.

/** The part of an Immutable.js Map the operation header needs. */
interface OperationProps {
  set(key: string, value: unknown): OperationProps;
}

/**
 * The plugin handed to swagger-ui. An operation's header is one big button; its path was a deep link (an <a href>)
 * inside it, a control inside a control that a keyboard reaches twice and a screen reader cannot name. The path is
 * drawn without the link: opening an operation still puts its deep link in the address bar (swagger-ui's
 * deep-linking plugin does that on open), so nothing is lost.
 */
export function accessibleSwaggerPlugin() {
  return {
    wrapComponents: {
      OperationSummaryPath: (Original: ComponentType<{ operationProps: OperationProps }>) =>
        function OperationPathWithoutLink(props: { operationProps: OperationProps }) {
          return <Original {...props} operationProps={props.operationProps.set("isDeepLinkingEnabled", false)} />;
        },
    },
  };
}

function setAttr(el: Element, name: string, value: string): void {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** Whether a form control already has an accessible name (a label with text, aria-label(ledby) or a title). */
function hasName(el: HTMLSelectElement | HTMLTextAreaElement): boolean {
  if (el.getAttribute("aria-label")?.trim() || el.getAttribute("aria-labelledby")?.trim()) return true;
  if (el.title.trim()) return true;
  // A label's own words, not those of the control it wraps (a <select>'s options are text inside its label).
  return [...(el.labels ?? [])].some((l) => {
    const copy = l.cloneNode(true) as HTMLElement;
    for (const c of copy.querySelectorAll("select, textarea, input")) c.remove();
    return (copy.textContent ?? "").trim() !== "";
  });
}

/** What an unnamed select or text box of swagger-ui is for, from where it sits. */
function controlName(el: HTMLSelectElement | HTMLTextAreaElement): string {
  if (el.id === "servers") return "Server";
  const param = el.closest("tr[data-param-name]");
  if (param) {
    const where = param.getAttribute("data-param-in");
    return `${param.getAttribute("data-param-name")}${where ? ` (${where})` : ""}`;
  }
  if (el.classList.contains("examples-select-element")) return "Example";
  if (el.closest(".body-param, .opblock-section-request-body")) {
    return el.tagName === "SELECT" ? "Request body media type" : "Request body";
  }
  if (el.closest(".responses-inner, .response-controls, .responses-wrapper")) return "Response media type";
  return el.tagName === "SELECT" ? "Choose a value" : "Value";
}

/** What a scrolling code box of swagger-ui shows, from where it sits. */
function codeName(pre: HTMLElement): string {
  if (pre.closest(".curl-command")) return "curl command";
  if (pre.closest(".request-url")) return "Request URL";
  if (pre.closest(".live-responses-table")) return "Server response";
  if (pre.closest(".model-example, .example, .response-col_description") || pre.classList.contains("example")) {
    return "Example";
  }
  return "Code";
}

const SCROLL_MARK = "data-a11y-scroll";
const MODAL_TITLE_ID = "swagger-dialog-title";
const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex='0']";

/**
 * Names and focus stops swagger-ui leaves out, added to what it has rendered under `root`. It only adds attributes
 * (and takes back the ones it added to a code box that no longer scrolls), so it can run again and again as
 * swagger-ui renders: a second run changes nothing.
 */
export function fixSwaggerA11y(root: HTMLElement): void {
  for (const el of root.querySelectorAll<HTMLSelectElement | HTMLTextAreaElement>("select, textarea")) {
    if (!hasName(el)) setAttr(el, "aria-label", controlName(el));
  }
  // The Authorize dialog is a plain <div>: it is made a modal dialog named by its heading.
  for (const modal of root.querySelectorAll(".modal-ux")) {
    setAttr(modal, "role", "dialog");
    setAttr(modal, "aria-modal", "true");
    const title = modal.querySelector(".modal-ux-header h3");
    if (title) {
      if (!title.id) title.id = MODAL_TITLE_ID;
      setAttr(modal, "aria-labelledby", title.id);
    }
  }
  // The Authorize dialog's close button is an icon alone.
  for (const el of root.querySelectorAll("button.close-modal")) {
    if (!el.getAttribute("aria-label") && !(el.textContent ?? "").trim()) setAttr(el, "aria-label", "Close");
  }
  // A button's name must hold the words it shows (WCAG 2.5.3, label in name): swagger-ui names the dialog's
  // "Authorize" and "Logout" buttons "Apply credentials" and "Remove authorization"; both are kept, after the words.
  for (const el of root.querySelectorAll("button[aria-label]")) {
    const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
    const label = el.getAttribute("aria-label") ?? "";
    if (text && !label.toLowerCase().includes(text.toLowerCase())) {
      setAttr(el, "aria-label", `${text} (${label.charAt(0).toLowerCase()}${label.slice(1)})`);
    }
  }
  // A code box that scrolls must be reachable by keyboard, so that the arrow keys can scroll it.
  for (const pre of root.querySelectorAll<HTMLElement>("pre")) {
    const scrolls = pre.scrollWidth - pre.clientWidth > 1 || pre.scrollHeight - pre.clientHeight > 1;
    if (scrolls) {
      setAttr(pre, "tabindex", "0");
      setAttr(pre, "role", "region");
      setAttr(pre, "aria-label", `${codeName(pre)}, scrolls`);
      setAttr(pre, SCROLL_MARK, "");
    } else if (pre.hasAttribute(SCROLL_MARK)) {
      for (const name of ["tabindex", "role", "aria-label", SCROLL_MARK]) pre.removeAttribute(name);
    }
  }
}

/**
 * Runs fixSwaggerA11y over the viewer under `ref` now and whenever swagger-ui renders something new (an operation
 * opened, an answer shown, the Authorize dialog) or the window changes size (a code box may start or stop scrolling).
 *
 * It also gives swagger-ui's Authorize dialog the behaviour of a modal dialog, which it lacks: focus moves into it
 * when it opens, Tab and Shift+Tab stay inside it, Escape closes it, and focus goes back to the button that opened
 * it (the Authorize button, or an operation's lock) however it is closed.
 */
export function useAccessibleSwagger(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    let frame = 0;
    let modal: HTMLElement | null = null;
    let opener: HTMLElement | null = null;
    // The last element focused outside the dialog: swagger-ui may focus a field of the dialog itself (autofocus)
    // before the dialog is seen here, so the opener is what had focus before that.
    let lastOutside: HTMLElement | null = null;
    const onFocusIn = (e: FocusEvent) => {
      if (e.target instanceof HTMLElement && !e.target.closest(".modal-ux")) lastOutside = e.target;
    };

    const followModal = () => {
      const shown = root.querySelector<HTMLElement>(".modal-ux");
      if (shown && shown !== modal) {
        modal = shown;
        const active = document.activeElement;
        opener = active instanceof HTMLElement && !shown.contains(active) && active !== document.body ? active : lastOutside;
        if (!shown.contains(active)) {
          const first = [...shown.querySelectorAll<HTMLElement>(FOCUSABLE)].find((el) => !el.classList.contains("close-modal"));
          (first ?? shown.querySelector<HTMLElement>(FOCUSABLE))?.focus();
        }
      } else if (!shown && modal) {
        modal = null;
        if (opener?.isConnected) opener.focus();
        opener = null;
      }
    };
    const run = () => {
      fixSwaggerA11y(root);
      followModal();
    };
    const schedule = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        run();
      });
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (!modal?.isConnected) return;
      if (e.key === "Escape") {
        e.preventDefault();
        modal.querySelector<HTMLElement>("button.close-modal")?.click();
        return;
      }
      if (e.key !== "Tab") return;
      const stops = [...modal.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0);
      if (stops.length === 0) return;
      const first = stops[0]!;
      const last = stops[stops.length - 1]!;
      const active = document.activeElement;
      if (e.shiftKey && (active === first || !modal.contains(active))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (active === last || !modal.contains(active))) {
        e.preventDefault();
        first.focus();
      }
    };

    run();
    // Our own attribute changes are not watched (no `attributes`), so a run never sets off another.
    const observer = new MutationObserver(schedule);
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    window.addEventListener("resize", schedule);
    document.addEventListener("keydown", onKeyDown, true);
    document.addEventListener("focusin", onFocusIn);
    return () => {
      document.removeEventListener("focusin", onFocusIn);
      observer.disconnect();
      window.removeEventListener("resize", schedule);
      document.removeEventListener("keydown", onKeyDown, true);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [ref]);
}
