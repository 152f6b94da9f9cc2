import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { CodeBlock, overflows } from "./code-block";

// jsdom lays nothing out: the box's sizes are set by hand, and ResizeObserver is a fake the test drives.
let observers: FakeResizeObserver[] = [];
class FakeResizeObserver {
  constructor(private readonly callback: ResizeObserverCallback) {
    observers.push(this);
  }
  observe() {}
  unobserve() {}
  disconnect() {}
  fire() {
    this.callback([], this as unknown as ResizeObserver);
  }
}

beforeEach(() => {
  observers = [];
  vi.stubGlobal("ResizeObserver", FakeResizeObserver);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Gives the code box its sizes, then tells the observers. */
function layOut(box: HTMLElement, sizes: { scrollHeight: number; clientHeight: number; scrollWidth?: number; clientWidth?: number }) {
  const { scrollHeight, clientHeight, scrollWidth = 300, clientWidth = 300 } = sizes;
  for (const [k, v] of Object.entries({ scrollHeight, clientHeight, scrollWidth, clientWidth })) {
    Object.defineProperty(box, k, { configurable: true, value: v });
  }
  act(() => observers.forEach((o) => o.fire()));
}

function renderBlock() {
  render(<CodeBlock title="Response" code={'{\n  "ok": true\n}'} className="[&_pre]:max-h-80" />);
  return screen.getByText(/"ok": true/).closest("pre") as HTMLElement;
}

describe("CodeBlock", () => {
  it("is no region and takes no Tab stop when the code shows whole", () => {
    const pre = renderBlock();
    layOut(pre, { scrollHeight: 200, clientHeight: 200 });
    expect(pre).not.toHaveAttribute("tabindex");
    expect(pre).not.toHaveAttribute("role");
    expect(screen.queryByRole("region")).toBeNull();
  });

  it("becomes a named, focusable region when its height is capped and the code scrolls", () => {
    const pre = renderBlock();
    layOut(pre, { scrollHeight: 900, clientHeight: 320 });
    const region = screen.getByRole("region", { name: "Response, scrolls" });
    expect(region).toBe(pre);
    expect(region).toHaveAttribute("tabindex", "0");
    // Back to fitting (a wider window): the Tab stop goes away again.
    layOut(pre, { scrollHeight: 320, clientHeight: 320 });
    expect(pre).not.toHaveAttribute("tabindex");
  });

  it("counts an overflow either way, but not a pixel of rounding", () => {
    expect(overflows({ scrollWidth: 301, clientWidth: 300, scrollHeight: 100, clientHeight: 100 })).toBe(false);
    expect(overflows({ scrollWidth: 300, clientWidth: 300, scrollHeight: 140, clientHeight: 100 })).toBe(true);
    expect(overflows({ scrollWidth: 420, clientWidth: 300, scrollHeight: 100, clientHeight: 100 })).toBe(true);
  });
});
