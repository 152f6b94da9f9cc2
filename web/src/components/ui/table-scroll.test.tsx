import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { TableScroll, clippedEdges } from "./table-scroll";

// jsdom lays nothing out: the box's sizes are set by hand, and ResizeObserver is a fake the test drives.
let observers: FakeResizeObserver[] = [];
class FakeResizeObserver {
  observed: Element[] = [];
  constructor(private readonly callback: ResizeObserverCallback) {
    observers.push(this);
  }
  observe(el: Element) {
    this.observed.push(el);
  }
  unobserve() {}
  disconnect() {
    this.observed = [];
  }
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

/** Gives the scroll box (the table's parent) its sizes and scroll position, then tells the observers. */
function layOut(box: HTMLElement, { scrollWidth, clientWidth, scrollLeft = 0 }: { scrollWidth: number; clientWidth: number; scrollLeft?: number }) {
  Object.defineProperty(box, "scrollWidth", { configurable: true, value: scrollWidth });
  Object.defineProperty(box, "clientWidth", { configurable: true, value: clientWidth });
  box.scrollLeft = scrollLeft;
  act(() => observers.forEach((o) => o.fire()));
}

function renderTable() {
  render(
    <TableScroll className="rounded-md border" label="Error codes">
      <table>
        <tbody>
          <tr>
            <td>400 Bad Request</td>
            <td>A long explanation</td>
          </tr>
        </tbody>
      </table>
    </TableScroll>,
  );
  return screen.getByRole("table").parentElement as HTMLElement;
}

describe("TableScroll", () => {
  it("shows no cue and is no region when the table fits", () => {
    const box = renderTable();
    layOut(box, { scrollWidth: 600, clientWidth: 600 });
    expect(screen.queryByTestId("scroll-hint")).not.toBeInTheDocument();
    expect(screen.queryByTestId("scroll-fade-end")).not.toBeInTheDocument();
    expect(screen.queryByRole("region")).not.toBeInTheDocument();
    expect(box).not.toHaveAttribute("tabindex");
  });

  it("fades the clipped right edge and says 'Scroll →' when the table overflows, as a named, focusable region", () => {
    const box = renderTable();
    layOut(box, { scrollWidth: 760, clientWidth: 358 });
    expect(screen.getByTestId("scroll-hint")).toHaveTextContent("Scroll →");
    expect(screen.getByTestId("scroll-hint")).toHaveAttribute("aria-hidden", "true");
    expect(screen.getByTestId("scroll-fade-end")).toHaveAttribute("aria-hidden", "true");
    expect(screen.queryByTestId("scroll-fade-start")).not.toBeInTheDocument();
    const region = screen.getByRole("region", { name: "Error codes, scrolls sideways" });
    expect(region).toBe(box);
    expect(region).toHaveAttribute("tabindex", "0");
    expect(region).toHaveClass("rounded-md", "border", "overflow-x-auto");
  });

  it("moves the fade as the table is scrolled and hides the hint at the end", () => {
    const box = renderTable();
    layOut(box, { scrollWidth: 760, clientWidth: 358 });

    box.scrollLeft = 200;
    fireEvent.scroll(box);
    expect(screen.getByTestId("scroll-fade-start")).toBeInTheDocument();
    expect(screen.getByTestId("scroll-fade-end")).toBeInTheDocument();
    expect(screen.getByTestId("scroll-hint")).toBeInTheDocument();

    box.scrollLeft = 402;
    fireEvent.scroll(box);
    expect(screen.getByTestId("scroll-fade-start")).toBeInTheDocument();
    expect(screen.queryByTestId("scroll-fade-end")).not.toBeInTheDocument();
    expect(screen.queryByTestId("scroll-hint")).not.toBeInTheDocument();
    // Still a region that scrolls, so still focusable and named.
    expect(screen.getByRole("region", { name: "Error codes, scrolls sideways" })).toBe(box);
  });

  it("follows a resize: the cue goes once the box is wide enough", () => {
    const box = renderTable();
    expect(observers.some((o) => o.observed.includes(box))).toBe(true);
    layOut(box, { scrollWidth: 760, clientWidth: 358 });
    expect(screen.getByTestId("scroll-hint")).toBeInTheDocument();
    layOut(box, { scrollWidth: 1000, clientWidth: 1000 });
    expect(screen.queryByTestId("scroll-hint")).not.toBeInTheDocument();
    expect(screen.queryByRole("region")).not.toBeInTheDocument();
  });
});

describe("clippedEdges", () => {
  it.each([
    [{ scrollWidth: 500, clientWidth: 500, scrollLeft: 0 }, { start: false, end: false }],
    [{ scrollWidth: 501, clientWidth: 500, scrollLeft: 0 }, { start: false, end: false }],
    [{ scrollWidth: 800, clientWidth: 400, scrollLeft: 0 }, { start: false, end: true }],
    [{ scrollWidth: 800, clientWidth: 400, scrollLeft: 150 }, { start: true, end: true }],
    [{ scrollWidth: 800, clientWidth: 400, scrollLeft: 399.5 }, { start: true, end: false }],
  ])("%o clips %o", (box, want) => {
    expect(clippedEdges(box)).toEqual(want);
  });
});
