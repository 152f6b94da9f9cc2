import { screen } from "@testing-library/react";
import { afterEach, vi } from "vitest";
import { mockFetch, renderWithProviders } from "@/test/utils";
import { SDK_CATALOG as CATALOG } from "@/test/sdk-fixture";
import { SdkInstall } from "./sdk-install";

afterEach(() => vi.unstubAllGlobals());

describe("SdkInstall", () => {
  it("shows the three install lines this server gives, with its own URLs", async () => {
    const { requests } = mockFetch({ "GET /api/sdks": { body: CATALOG } });
    renderWithProviders(<SdkInstall />);
    expect(await screen.findByText(CATALOG.go.install)).toBeInTheDocument();
    expect(screen.getByText(CATALOG.typescript.install)).toBeInTheDocument();
    expect(screen.getByText(CATALOG.python!.install)).toBeInTheDocument();
    expect(screen.getByText("Go · valuator.dev/sdk/go v1.0.0")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /copy typescript/i })).toBeInTheDocument();
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /api/sdks"]);
  });

  it("says when the server was built without the Python client", async () => {
    mockFetch({ "GET /api/sdks": { body: { ...CATALOG, python: null } } });
    renderWithProviders(<SdkInstall />);
    expect(await screen.findByTestId("sdk-install-no-python")).toHaveTextContent("not in this build");
    expect(screen.getByText(CATALOG.go.install)).toBeInTheDocument();
  });

  it("says when the server was built without any client (503)", async () => {
    mockFetch({
      "GET /api/sdks": {
        status: 503,
        body: { error: "The client packages are not built into this binary", code: "sdks_not_built", requestId: "x" },
      },
    });
    renderWithProviders(<SdkInstall />);
    expect(await screen.findByTestId("sdk-install-unavailable")).toHaveTextContent("built without its client libraries");
    expect(screen.queryByText(/go get/)).not.toBeInTheDocument();
  });
});
