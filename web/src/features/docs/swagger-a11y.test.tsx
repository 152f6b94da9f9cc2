import { afterEach, describe, expect, it } from "vitest";
import { useRef } from "react";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { accessibleSwaggerPlugin, fixSwaggerA11y, useAccessibleSwagger } from "./swagger-a11y";

// The markup below is swagger-ui's, as 5.x renders it (trimmed to the parts that matter).
afterEach(() => document.body.replaceChildren());

function viewer(html: string): HTMLElement {
  const root = document.createElement("div");
  root.innerHTML = html;
  document.body.replaceChildren(root);
  return root;
}

/** Gives a box its sizes (jsdom lays nothing out). */
function size(el: Element, { scrollHeight, clientHeight }: { scrollHeight: number; clientHeight: number }) {
  for (const [k, v] of Object.entries({ scrollHeight, clientHeight, scrollWidth: 300, clientWidth: 300 })) {
    Object.defineProperty(el, k, { configurable: true, value: v });
  }
}

describe("fixSwaggerA11y", () => {
  it("names the server choice, whose label holds only the select", () => {
    viewer(`<div class="servers"><label for="servers"><select id="servers"><option>/ - this server</option></select></label></div>`);
    fixSwaggerA11y(document.body);
    expect(screen.getByRole("combobox", { name: "Server" })).toBeInTheDocument();
  });

  it("names a parameter's choice and the request body by where they sit, and leaves named controls alone", () => {
    viewer(`
      <table><tbody><tr data-param-name="state" data-param-in="query"><td><select><option>WA</option></select></td></tr></tbody></table>
      <div class="opblock-section-request-body"><div class="body-param"><textarea class="body-param__text"></textarea></div></div>
      <select class="examples-select-element"><option>demoHome</option></select>
      <select aria-label="Media Type" class="content-type"><option>application/json</option></select>`);
    fixSwaggerA11y(document.body);
    expect(screen.getByRole("combobox", { name: "state (query)" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Request body" })).toBeInTheDocument();
    expect(screen.getByRole("combobox", { name: "Example" })).toBeInTheDocument();
    expect(screen.getByRole("combobox", { name: "Media Type" })).toBeInTheDocument();
  });

  it("names the dialog's icon-only close button, and puts each button's words first in its name", () => {
    viewer(`
      <div class="modal-ux">
        <button type="button" class="close-modal"><svg aria-hidden="true"></svg></button>
        <div class="auth-btn-wrapper"><button type="submit" aria-label="Apply credentials">Authorize</button></div>
        <div class="auth-btn-wrapper"><button type="button" aria-label="Remove authorization">Logout</button></div>
        <button aria-label="Copy code to clipboard"></button>
      </div>`);
    fixSwaggerA11y(document.body);
    expect(screen.getByRole("button", { name: "Close" })).toHaveClass("close-modal");
    expect(screen.getByRole("button", { name: "Authorize (apply credentials)" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Logout (remove authorization)" })).toBeInTheDocument();
    // An icon button named for what it does keeps its name.
    expect(screen.getByRole("button", { name: "Copy code to clipboard" })).toBeInTheDocument();
  });

  it("makes a scrolling code box a named region with a Tab stop, and takes it back when it no longer scrolls", () => {
    viewer(`
      <div class="highlight-code"><pre class="example microlight">{"a": 1}</pre></div>
      <div class="curl-command"><pre>curl -X GET</pre></div>`);
    const [example, curl] = document.querySelectorAll("pre");
    size(example!, { scrollHeight: 900, clientHeight: 400 });
    size(curl!, { scrollHeight: 40, clientHeight: 40 });
    fixSwaggerA11y(document.body);
    expect(screen.getByRole("region", { name: "Example, scrolls" })).toHaveAttribute("tabindex", "0");
    expect(curl).not.toHaveAttribute("tabindex");

    size(example!, { scrollHeight: 400, clientHeight: 400 });
    fixSwaggerA11y(document.body);
    expect(example).not.toHaveAttribute("tabindex");
    expect(example).not.toHaveAttribute("role");
    expect(screen.queryByRole("region")).toBeNull();
  });

  it("changes nothing on a second run", () => {
    viewer(`<div class="auth-btn-wrapper"><button aria-label="Apply credentials">Authorize</button></div>
      <select id="servers"><option>/</option></select>`);
    fixSwaggerA11y(document.body);
    const once = document.body.innerHTML;
    fixSwaggerA11y(document.body);
    expect(document.body.innerHTML).toBe(once);
  });
});

describe("accessibleSwaggerPlugin", () => {
  it("draws an operation's path without its deep link, which sat inside the header's button", () => {
    const wrap = accessibleSwaggerPlugin().wrapComponents.OperationSummaryPath;
    // swagger-ui's component renders the path as a link when deep linking is on; its props are an Immutable Map.
    const Original = ({ operationProps }: { operationProps: { get(k: string): unknown } }) =>
      operationProps.get("isDeepLinkingEnabled") ? <a href="#/Tag/op">/path</a> : <a>/path</a>;
    const Wrapped = wrap(Original as never);
    const props = new Map<string, unknown>([["isDeepLinkingEnabled", true]]);
    const immutableLike = {
      get: (k: string) => props.get(k),
      set: (k: string, v: unknown) => {
        const next = new Map(props).set(k, v);
        return { get: (key: string) => next.get(key), set: () => { throw new Error("unused"); } };
      },
    };
    render(<button type="button"><Wrapped operationProps={immutableLike as never} /></button>);
    expect(screen.queryByRole("link")).toBeNull();
    expect(screen.getByRole("button")).toHaveTextContent("/path");
  });
});

describe("useAccessibleSwagger: the Authorize dialog", () => {
  function Viewer() {
    const ref = useRef<HTMLDivElement>(null);
    useAccessibleSwagger(ref);
    return (
      <div ref={ref} data-testid="viewer">
        <button type="button">Authorize</button>
      </div>
    );
  }

  /** Opens the dialog as swagger-ui draws it; its close button takes it away again. */
  function openDialog() {
    const dialog = document.createElement("div");
    dialog.className = "dialog-ux";
    dialog.innerHTML = `<div class="backdrop-ux"></div><div class="modal-ux"><div class="modal-ux-header">
      <h3>Available authorizations</h3><button type="button" class="close-modal"><svg aria-hidden="true"></svg></button></div>
      <div class="auth-container"><label>Value:<input type="text"></label>
      <div class="auth-btn-wrapper"><button type="submit" aria-label="Apply credentials">Authorize</button></div></div></div>`;
    dialog.querySelector("button.close-modal")!.addEventListener("click", () => dialog.remove());
    screen.getByTestId("viewer").append(dialog);
  }

  it("is a named modal dialog that takes focus, keeps Tab inside, closes on Escape and gives focus back", async () => {
    render(<Viewer />);
    const opener = screen.getByRole("button", { name: "Authorize" });
    opener.focus();
    openDialog();

    const dialog = await screen.findByRole("dialog", { name: "Available authorizations" });
    expect(dialog).toHaveAttribute("aria-modal", "true");
    const field = screen.getByLabelText("Value:");
    await waitFor(() => expect(field).toHaveFocus());

    // jsdom lays nothing out: every stop is given a box so the trap counts it.
    for (const el of dialog.querySelectorAll("button, input")) el.getClientRects = () => [{}] as unknown as DOMRectList;
    const close = screen.getByRole("button", { name: "Close" });
    const apply = screen.getByRole("button", { name: "Authorize (apply credentials)" });
    apply.focus();
    fireEvent.keyDown(apply, { key: "Tab" });
    expect(close).toHaveFocus();
    fireEvent.keyDown(close, { key: "Tab", shiftKey: true });
    expect(apply).toHaveFocus();

    fireEvent.keyDown(apply, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
    await waitFor(() => expect(opener).toHaveFocus());
  });
});
