import { afterEach, describe, expect, it, vi } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { createQueryClient } from "@/lib/query-client";
import { mockFetch } from "@/test/utils";
import { ApiStatus, HEALTH_POLL_MS } from "./api-status";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function renderStatus() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <ApiStatus />
    </QueryClientProvider>,
  );
}

const healthCalls = (fetchMock: ReturnType<typeof vi.fn>) =>
  fetchMock.mock.calls.filter(([url]) => url === "/healthz").length;

describe("ApiStatus", () => {
  it("reads 'API Online' when /healthz answers", async () => {
    mockFetch({ "GET /healthz": { body: { status: "ok" } } });
    renderStatus();
    expect(await screen.findByText("API Online")).toBeInTheDocument();
    expect(screen.getByTestId("api-status")).toHaveAttribute("data-state", "online");
  });

  it("reads 'API Offline' in red when the server cannot be reached", async () => {
    mockFetch({ "GET /healthz": "network-error" });
    renderStatus();
    expect(await screen.findByText("API Offline")).toBeInTheDocument();
    const status = screen.getByTestId("api-status");
    expect(status).toHaveAttribute("data-state", "offline");
    expect(status.className).toMatch(/text-red-/);
  });

  it("polls every 30 seconds and recovers when the server answers again", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let up = false;
    const { fetchMock } = mockFetch({
      "GET /healthz": () => (up ? { body: { status: "ok" } } : { status: 503, body: { error: "down" } }),
    });
    renderStatus();
    expect(await screen.findByText("API Offline")).toBeInTheDocument();
    expect(healthCalls(fetchMock)).toBe(1);

    up = true;
    await act(() => vi.advanceTimersByTimeAsync(HEALTH_POLL_MS - 1000));
    expect(healthCalls(fetchMock)).toBe(1);
    expect(screen.getByText("API Offline")).toBeInTheDocument();

    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(await screen.findByText("API Online")).toBeInTheDocument();
    expect(healthCalls(fetchMock)).toBe(2);

    up = false;
    await act(() => vi.advanceTimersByTimeAsync(HEALTH_POLL_MS));
    expect(await screen.findByText("API Offline")).toBeInTheDocument();
    expect(healthCalls(fetchMock)).toBe(3);
  });
});
